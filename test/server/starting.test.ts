import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, expect, it} from 'vitest'
import {startSeam, startServer} from '../../src/server/start.js'
import {spawnRunning} from '../helpers/cli.js'
import {freePort} from '../helpers/ports.js'
import {createTestDatabase, onPostgres} from '../helpers/postgres.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step()
})

/** A fresh data dir, or on PostgreSQL a fresh database, as `serve`'s flags and as start options. */
async function freshStore(): Promise<{flags: string[]; options: {dataDir?: string; database?: string}}> {
  if (onPostgres) {
    const database = await createTestDatabase()
    cleanup.push(() => database.drop())
    return {flags: ['--database', database.url], options: {database: database.url}}
  }
  const root = await mkdtemp(join(tmpdir(), 'tablepay-starting-'))
  cleanup.push(() => rm(root, {recursive: true, force: true}))
  return {flags: ['--data', join(root, 'data')], options: {dataDir: join(root, 'data')}}
}

it('a request while the server starts is answered 503 starting with Retry-After, then 200 once it is ready', async () => {
  const {options} = await freshStore()
  let release!: () => void
  let listening!: () => void
  const held = new Promise<void>((resolve) => (listening = resolve))
  startSeam.afterListening = () => {
    listening()
    return new Promise((resolve) => (release = resolve))
  }
  cleanup.push(async () => (startSeam.afterListening = async () => {}))
  const port = await freePort()
  const starting = startServer({port, host: '127.0.0.1', ...options})
  await held
  const url = `http://127.0.0.1:${port}`
  // an app that throws instead of answering would leave the request hanging: fail it in seconds
  const fetch = (input: string, init: RequestInit = {}) =>
    globalThis.fetch(input, {...init, signal: AbortSignal.timeout(5000)})

  const early = [
    await fetch(`${url}/v1/health`),
    await fetch(`${url}/v1/checks`, {method: 'POST', body: '{}', headers: {'x-request-id': 'req_early'}}),
  ]
  for (const answer of early) {
    expect(answer.status).toBe(503)
    expect(answer.headers.get('retry-after')).toBe('1')
    expect(await answer.json()).toEqual({
      error: {code: 'starting', message: expect.stringContaining('Retry-After'), request_id: expect.any(String)},
    })
  }
  expect(early[1]!.headers.get('x-request-id')).toBe('req_early')
  const head = await fetch(`${url}/v1/health`, {method: 'HEAD'})
  expect([head.status, await head.text()]).toEqual([503, ''])

  release()
  const server = await starting
  cleanup.push(() => server.close())
  expect((await fetch(`${url}/v1/health`)).status).toBe(200)
})

it('serve polled from its spawn on, as a CI health check does, answers 503 starting or 200 and exits 0 on stop', async () => {
  // several at once: each poller competes with the others' starts, as on a CI machine
  const seen = await Promise.all(
    Array.from({length: 4}, async () => {
      const {flags} = await freshStore()
      const port = await freePort()
      const serve = spawnRunning(['serve', '--port', String(port), '--json', ...flags])
      let exited = false
      void serve.exited.then(() => (exited = true))
      const answers: {status: number; code?: string}[] = []
      try {
        while (!exited && answers.at(-1)?.status !== 200) {
          const answer = await fetch(`http://127.0.0.1:${port}/v1/health`).catch(() => undefined)
          if (!answer) continue
          const body = (await answer.json().catch(() => ({}))) as {error?: {code?: string}}
          answers.push({status: answer.status, code: body.error?.code})
        }
        if (exited) return {answers, exitCode: await serve.exited}
        // stopped once it says it is ready, as CI stops it: a signal before then is not what this test is about
        await serve.waitForOutput('"status":"ready"')
        return {answers, exitCode: await serve.stop()}
      } finally {
        if (!exited) await serve.kill('SIGKILL')
      }
    }),
  )
  for (const {answers, exitCode} of seen) {
    expect(answers.at(-1)?.status).toBe(200)
    expect(exitCode).toBe(0)
    for (const early of answers.slice(0, -1)) expect(early).toEqual({status: 503, code: 'starting'})
  }
})
