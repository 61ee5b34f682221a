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

/**
 * `serve` on a fresh data dir with 12 endpoints for `check.created` on a receiver that never
 * answers: no attempt is recorded, so the records stay as the pushes made them.
 */
async function serveWithHungEndpoints() {
  const receiver = await startReceiver(() => 'hang')
  let open = true
  // the attempts a restart sends again then fail at once, instead of waiting out the receiver timeout
  const closeReceiver = async () => {
    if (open) await receiver.close()
    open = false
  }
  cleanup.push(closeReceiver)
  const dataDir = join(await makeTempDir(), 'data')
  const serve = await startCliServer(['--data', dataDir, '--seed', 'fixtures/seed.json'])
  server = serve
  const base = serve.url.replace(/\/v1$/, '')
  for (let i = 0; i < 12; i++) {
    const body = {url: receiver.url, event_types: ['check.created']}
    expect((await call(base, 'POST', '/v1/webhook-endpoints', {body})).status).toBe(201)
  }
  return {serve, dataDir, base, closeReceiver}
}

it('serve killed with SIGKILL after a push to 12 endpoints restarts with the same delivery records', async () => {
  const {serve, dataDir, base, closeReceiver} = await serveWithHungEndpoints()
  expect((await call(base, 'PUT', '/v1/checks/external/fan-out', {body: checkWith([['a', 1, 100]])})).status).toBe(201)
  const before = await call(base, 'GET', '/v1/deliveries?limit=100')
  expect(before.body.data).toHaveLength(12)
  await serve.kill('SIGKILL')
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
    await closeReceiver()
    await restarted.close()
  }
})

it('serve killed with SIGKILL while pushes to 12 endpoints leave their deliveries to the background loses none and writes none twice', async () => {
  const {serve, dataDir, base, closeReceiver} = await serveWithHungEndpoints()
  // pushes in a row keep the server busy, so the background writes their deliveries well behind them
  // (docs/storage.md, "Deferred fan-out"): the kill finds marks still to be written
  const answered: number[] = []
  for (let batch = 0; batch < 8; batch++) {
    const pushes = Array.from({length: 20}, (_, i) =>
      call(base, 'PUT', `/v1/checks/external/k${batch}-${i}`, {body: checkWith([['a', 1, 100]])}),
    )
    for (const push of await Promise.all(pushes)) answered.push(push.status)
  }
  expect(answered).toEqual(Array(160).fill(201))
  await serve.kill('SIGKILL')
  server = undefined

  const restarted = await startServer({port: 0, host: '127.0.0.1', dataDir})
  try {
    const all = async (path: string) => {
      const records = []
      let page = (await call(restarted.url, 'GET', `${path}?limit=100`, {key: WRITE_KEY})).body
      records.push(...page.data)
      while (page.has_more) {
        const after = records.at(-1).id
        page = (await call(restarted.url, 'GET', `${path}?limit=100&starting_after=${after}`, {key: WRITE_KEY})).body
        records.push(...page.data)
      }
      return records
    }
    const events = await all('/v1/events')
    const deliveries = await all('/v1/deliveries')
    expect(events).toHaveLength(160)
    const endpointsOf = new Map<string, string[]>(events.map((e) => [e.id, []]))
    for (const d of deliveries) endpointsOf.get(d.event_id)!.push(d.endpoint_id)
    // each event once to each of the 12 endpoints
    expect([...endpointsOf.values()].map((endpoints) => new Set(endpoints).size)).toEqual(Array(160).fill(12))
    expect(deliveries).toHaveLength(160 * 12)
  } finally {
    await closeReceiver()
    await restarted.close()
  }
})
