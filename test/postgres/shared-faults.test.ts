import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import {drawAt} from '../../src/domain/faults.js'
import {PgStorage} from '../../src/postgres/storage.js'
import {createService} from '../../src/server/service.js'
import {type RunningServer, startServer} from '../../src/server/start.js'
import {createTestDatabase, type TestDatabase} from '../helpers/postgres.js'
import {call, makeTempDir, writeSeed} from '../helpers/simulator.js'

// two instances of one sandbox: a fault added through either strikes requests sent to both, as many times as asked
let db: TestDatabase
let seedFile: string
let a: RunningServer
let b: RunningServer

const start = () => startServer({port: 0, host: '127.0.0.1', database: db.url, seedFile})

beforeAll(async () => {
  db = await createTestDatabase()
  seedFile = await writeSeed(await makeTempDir())
  ;[a, b] = await Promise.all([start(), start()])
})

afterAll(async () => {
  await Promise.all([a?.close(), b?.close()])
  await db?.drop()
})

beforeEach(async () => {
  expect((await call(a.url, 'POST', '/v1/sim/reset')).status).toBe(200)
})

const addFault = async (server: RunningServer, fault: unknown) => {
  const answer = await call(server.url, 'POST', '/v1/sim/faults', {body: fault})
  expect(answer.status, answer.text).toBe(201)
  return answer.body as {id: string}
}
const faultsOf = async (server: RunningServer) =>
  (await call(server.url, 'GET', '/v1/sim/faults?limit=100')).body.data as {id: string; remaining: number | null}[]
const locations = (server: RunningServer) => call(server.url, 'GET', '/v1/locations')
const LOCATIONS = {match: {method: 'GET', path: '/v1/locations'}}
const NOW = '2026-01-01T00:00:00.000Z'

/** Asks until `server` has heard of what another instance did: a note takes a moment to arrive. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; ; i++) {
    const value = await read()
    if (done(value) || i === 200) return value
    await new Promise((resolve) => setImmediate(resolve))
  }
}

/**
 * Resolves once b has heard of every fault added through a so far: a marker
 * added after them strikes on b (a's notes reach b in the order they were sent).
 */
async function heardByB(): Promise<void> {
  const marker = await addFault(a, {match: {method: 'GET', path: '/v1/events'}, status: 504})
  const answer = await until(
    () => call(b.url, 'GET', '/v1/events'),
    (answer) => answer.status === 504,
  )
  expect(answer.headers.get('x-tablepay-fault')).toBe(marker.id)
}

describe('faults across instances', () => {
  it('a fault added through a strikes a request sent to b, once, and is gone on both', async () => {
    const fault = await addFault(a, {...LOCATIONS, status: 503})
    expect(await faultsOf(b)).toMatchObject([{id: fault.id, remaining: 1}])
    const struck = await until(
      () => locations(b),
      (answer) => answer.status === 503,
    )
    expect(struck.status).toBe(503)
    expect(struck.headers.get('x-tablepay-fault')).toBe(fault.id)
    expect((await locations(a)).status).toBe(200)
    expect((await locations(b)).status).toBe(200)
    expect(await faultsOf(a)).toEqual([])
  })

  it('remaining: 3 strikes exactly 3 of 20 concurrent requests split across a and b', async () => {
    const fault = await addFault(a, {...LOCATIONS, status: 500, times: 3})
    // b has heard of it before the requests go out, so that both instances race for its strikes
    await heardByB()
    const answers = await Promise.all(Array.from({length: 20}, (_, i) => locations(i % 2 === 0 ? a : b)))
    const struck = answers.filter((answer) => answer.status === 500)
    expect(struck).toHaveLength(3)
    for (const answer of struck) expect(answer.headers.get('x-tablepay-fault')).toBe(fault.id)
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(17)
    expect(await faultsOf(a)).toEqual([])
    expect(await faultsOf(b)).toEqual([])
  })

  it('clear through b removes the faults added through a', async () => {
    await addFault(a, {...LOCATIONS, status: 503, times: null})
    await addFault(a, {status: 502, match: {path: '/v1/checks/**'}})
    const cleared = await call(b.url, 'DELETE', '/v1/sim/faults')
    expect(cleared.body).toEqual({object: 'fault_clear', deleted: 2})
    expect(await faultsOf(a)).toEqual([])
    expect((await locations(a)).status).toBe(200)
    expect((await locations(b)).status).toBe(200)
  })

  it('delete through b removes one fault for both; a used-up one is 404 on either', async () => {
    const kept = await addFault(a, {...LOCATIONS, status: 503, times: null})
    const removed = await addFault(a, {status: 502, match: {path: '/v1/checks/**'}})
    expect((await call(b.url, 'DELETE', `/v1/sim/faults/${removed.id}`)).status).toBe(200)
    expect((await faultsOf(a)).map((f) => f.id)).toEqual([kept.id])
    expect((await call(a.url, 'DELETE', `/v1/sim/faults/${removed.id}`)).status).toBe(404)
  })

  it('a reset through b clears the faults added through a', async () => {
    await addFault(a, {...LOCATIONS, status: 503, times: null})
    expect((await call(b.url, 'POST', '/v1/sim/reset')).status).toBe(200)
    expect(await faultsOf(a)).toEqual([])
    expect((await locations(a)).status).toBe(200)
  })

  it("a seeded fault's draws are one sequence for all instances, in the order the requests reach the database", async () => {
    const fault = await addFault(a, {...LOCATIONS, status: 503, times: null, probability: 0.5, seed: 7})
    await heardByB()
    const got: boolean[] = []
    for (let i = 0; i < 12; i++) {
      const answer = await locations(i % 2 === 0 ? a : b)
      got.push(answer.status === 503 && answer.headers.get('x-tablepay-fault') === fault.id)
    }
    const expected = Array.from({length: 12}, (_, i) => drawAt(7, i + 1) < 0.5)
    expect(got).toEqual(expected)
    expect(expected).toContain(true)
    expect(expected).toContain(false)
  })

  it("faults added at once through two instances stop at the account's limit: 100 of 150, the rest 422", async () => {
    // services, not HTTP: each instance's additions all reach its pool before any of them is answered
    const instances = await Promise.all([0, 1].map(() => PgStorage.open({url: db.url})))
    const services = await Promise.all(instances.map((storage) => createService(storage, 'http://127.0.0.1:9', {})))
    try {
      const account = a.accounts[0]!.id
      const adds = Array.from({length: 150}, (_, i) =>
        services[i % 2]!.service.faults.add(account, {status: 503, match: {path: '/v1/claims/clm_none'}}, NOW),
      )
      const settled = await Promise.allSettled(adds)
      expect(settled.filter((result) => result.status === 'fulfilled')).toHaveLength(100)
      const refused = settled.flatMap((result) => (result.status === 'rejected' ? [result.reason.code] : []))
      expect(refused).toEqual(Array(50).fill('limit_reached'))
      expect(await faultsOf(b)).toHaveLength(100)
    } finally {
      for (const running of services) await running.close()
      for (const storage of instances) await storage.close()
    }
  })

  it('faults outlive the restart of one instance beside a live one, not a start of the sandbox alone', async () => {
    const fault = await addFault(a, {...LOCATIONS, status: 503, times: null})
    await b.close()
    b = await start()
    expect((await faultsOf(b)).map((f) => f.id)).toEqual([fault.id])
    expect((await locations(b)).status).toBe(503)
    await Promise.all([a.close(), b.close()])
    ;[a, b] = await Promise.all([start(), start()])
    expect(await faultsOf(a)).toEqual([])
    expect((await locations(b)).status).toBe(200)
  })
})
