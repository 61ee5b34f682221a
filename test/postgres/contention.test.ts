import {afterAll, beforeAll, expect, it} from 'vitest'
import {type RunningServer, startServer} from '../../src/server/start.js'
import {checkWith} from '../helpers/checks.js'
import {createTestDatabase, type TestDatabase} from '../helpers/postgres.js'
import {startReceiver} from '../helpers/receiver.js'
import {call, makeTempDir, writeSeed} from '../helpers/simulator.js'

let db: TestDatabase
let a: RunningServer
let b: RunningServer
let receiver: Awaited<ReturnType<typeof startReceiver>>

beforeAll(async () => {
  db = await createTestDatabase()
  receiver = await startReceiver()
  const seedFile = await writeSeed(await makeTempDir())
  const start = () => startServer({port: 0, host: '127.0.0.1', database: db.url, seedFile, retention: {maxEvents: 50}})
  ;[a, b] = await Promise.all([start(), start()])
})

afterAll(async () => {
  await Promise.all([a?.close(), b?.close()])
  await receiver?.close()
  await db?.drop()
})

it('pushes, claims, payments and resets at once through two instances, every fan-out drawing chaos: no 5xx, no stall', async () => {
  // chaos makes every fan-out write its endpoints back: the units that list them contend on their rows
  for (const server of [a, b]) {
    const body = {url: receiver.url, event_types: ['check.created', 'check.updated']}
    const endpoint = await call(server.url, 'POST', '/v1/webhook-endpoints', {body})
    const chaos = {duplicate: 0.5, reorder_window_s: 0, seed: 1}
    const stirred = await call(server.url, 'PUT', `/v1/sim/webhook-endpoints/${endpoint.body.id}/chaos`, {body: chaos})
    expect(stirred.status).toBe(200)
  }
  const statuses: number[] = []
  const act = async (i: number) => {
    const [here, there] = i % 2 === 0 ? [a, b] : [b, a]
    if (i % 50 === 49) return void statuses.push((await call(here.url, 'POST', '/v1/sim/reset')).status)
    const body = checkWith([['steak', (i % 5) + 1, 100]], {version: i})
    const pushed = await call(here.url, 'PUT', `/v1/checks/external/m${i % 10}`, {body})
    statuses.push(pushed.status)
    if (pushed.status >= 300 || i % 3 !== 0) return
    const claim = {items: [{external_id: 'steak', quantity: 1}]}
    statuses.push((await call(here.url, 'POST', `/v1/sim/checks/${pushed.body.id}/claims`, {body: claim})).status)
    const headers = {'idempotency-key': `k${i % 7}`}
    const paid = await call(there.url, 'POST', `/v1/sim/checks/${pushed.body.id}/payments`, {
      body: {amount_cents: 10},
      headers,
    })
    statuses.push(paid.status)
  }
  const started = Date.now()
  await Promise.all(Array.from({length: 400}, (_, i) => act(i)))
  expect(statuses.filter((status) => status >= 500)).toEqual([])
  expect(statuses.filter((status) => status < 300).length).toBeGreaterThan(300)
  // each unit waits for the ones before it on the rows it shares with them, and no longer
  expect(Date.now() - started).toBeLessThan(30_000)
})
