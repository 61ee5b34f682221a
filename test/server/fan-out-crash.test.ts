import {readdir, readFile} from 'node:fs/promises'
import {join} from 'node:path'
import {afterEach, expect, it} from 'vitest'
import {startServer} from '../../src/server/start.js'
import {checkWith} from '../helpers/checks.js'
import {type CliServer, startCliServer} from '../helpers/cli.js'
import {startReceiver} from '../helpers/receiver.js'
import {call, makeTempDir, WRITE_KEY} from '../helpers/simulator.js'

const cleanup: (() => Promise<unknown>)[] = []
let server: CliServer | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
  while (cleanup.length > 0) await cleanup.pop()!()
})

it('serve killed with SIGKILL after a push to 12 endpoints restarts with the same delivery records', async () => {
  // a receiver that never answers: no attempt is recorded, so the records stay as the push made them
  const receiver = await startReceiver(() => 'hang')
  let receiverOpen = true
  cleanup.push(() => (receiverOpen ? receiver.close() : Promise.resolve()))
  const dataDir = join(await makeTempDir(), 'data')
  server = await startCliServer(['--data', dataDir, '--seed', 'fixtures/seed.json'])
  const base = server.url.replace(/\/v1$/, '')
  for (let i = 0; i < 12; i++) {
    const body = {url: receiver.url, event_types: ['check.created']}
    const created = await call(base, 'POST', '/v1/webhook-endpoints', {body})
    expect(created.status).toBe(201)
  }
  expect((await call(base, 'PUT', '/v1/checks/external/fan-out', {body: checkWith([['a', 1, 100]])})).status).toBe(201)
  const before = await call(base, 'GET', '/v1/deliveries?limit=100')
  expect(before.body.data).toHaveLength(12)
  await server.kill('SIGKILL')
  server = undefined

  // the push's deliveries were journaled in the short form (docs/storage.md "Files"), not as 12 full records
  const segments = (await readdir(dataDir)).filter((f) => f.startsWith('journal.'))
  const journal = await Promise.all(segments.map((f) => readFile(join(dataDir, f), 'utf8')))
  expect(journal.join('').split('"object":"delivery"')).toHaveLength(2)

  const restarted = await startServer({port: 0, host: '127.0.0.1', dataDir})
  try {
    const after = await call(restarted.url, 'GET', '/v1/deliveries?limit=100', {key: WRITE_KEY})
    expect(after.body).toEqual(before.body)
  } finally {
    // the attempts the restart sent again fail at once, instead of waiting out the receiver timeout
    receiverOpen = false
    await receiver.close()
    await restarted.close()
  }
})
