import {execFile, spawn} from 'node:child_process'
import {once} from 'node:events'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {afterEach, expect, it} from 'vitest'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

const CLIENT = join(import.meta.dirname, '../../dist/client/client.js')

/**
 * The error codes of `calls` calls made one after the other by a client of `options` (a JS object literal), in
 * `processes` processes of their own, each as a CLI command runs one: not under a top-level await, which Node
 * ends with exit code 13 when it never settles, so a call that never settles shows as codes missing.
 */
async function codesOf(options: string, calls: number, processes = 1): Promise<string[][]> {
  const script = `
    const {TablepayClient} = await import(${JSON.stringify(CLIENT)})
    const client = new TablepayClient(${options})
    const codes = []
    process.on('exit', () => console.log(JSON.stringify(codes)))
    void (async () => {
      for (let i = 0; i < ${calls}; i++)
        await client.request('POST', '/sim/faults', {body: {status: 503}}).then(() => codes.push('answered'), (error) => codes.push(error.code))
    })()
  `
  const runs = Array.from({length: processes}, () =>
    promisify(execFile)(process.execPath, ['--input-type=module', '-e', script]),
  )
  return (await Promise.all(runs)).map(({stdout}) => JSON.parse(stdout) as string[])
}

it('fails each call with connection_failed when the server resets the connection at once, never exiting silently', async () => {
  // a server that resets each connection as it opens, in a process of its own so that it resets at once:
  // Node 20's fetch then leaves a call unsettled in most runs of 10 processes here
  const resetting = spawn(process.execPath, [
    '-e',
    `const server = require('node:net').createServer((s) => { s.on('error', () => {}); s.resetAndDestroy() })
     server.listen(0, '127.0.0.1', () => console.log(server.address().port))`,
  ])
  cleanup.push(async () => resetting.kill())
  const [port] = (await once(resetting.stdout, 'data')) as [Buffer]
  const options = `{url: 'http://127.0.0.1:${String(port).trim()}', apiKey: 'tp_test_x', timeoutMs: 0}`
  expect(await codesOf(options, 10, 10)).toEqual(Array.from({length: 10}, () => Array(10).fill('connection_failed')))
})

it('fails a call whose fetch never settles with connection_failed once nothing else is left to do', async () => {
  // what Node 20's fetch does after such a reset, every time
  const options = `{url: 'http://127.0.0.1:9', apiKey: 'tp_test_x', timeoutMs: 0, fetch: () => new Promise(() => {})}`
  expect(await codesOf(options, 1)).toEqual([['connection_failed']])
})
