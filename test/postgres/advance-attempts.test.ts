import {afterEach, expect, it} from 'vitest'
import {type RunningServer, startServer} from '../../src/server/start.js'
import {checkWith} from '../helpers/checks.js'
import {createTestDatabase} from '../helpers/postgres.js'
import {startReceiver} from '../helpers/receiver.js'
import {call, makeTempDir, writeSeed} from '../helpers/simulator.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

/** Deliveries pending when the advance starts: more than both instances have slots for, so they contend. */
const DELIVERIES = 40

it("an advance through one of two instances counts the attempts sent, not the deliveries canceled once the endpoint's disabling ends them", async () => {
  const db = await createTestDatabase()
  cleanup.push(() => db.drop())
  const seedFile = await writeSeed(await makeTempDir())
  // one dead delivery disables the endpoint: the first retry that fails, since each has one retry
  const start = () =>
    startServer({port: 0, host: '127.0.0.1', database: db.url, seedFile, retrySchedule: [60], disableAfter: 1})
  const [a, b] = (await Promise.all([start(), start()])) as [RunningServer, RunningServer]
  cleanup.push(
    () => a.close(),
    () => b.close(),
  )
  const receiver = await startReceiver(() => 500)
  cleanup.push(() => receiver.close())
  const endpoint = await call(a.url, 'POST', '/v1/webhook-endpoints', {
    body: {url: receiver.url, event_types: ['check.created']},
  })
  expect(endpoint.status).toBe(201)
  const pushed = await Promise.all(
    Array.from({length: DELIVERIES}, (_, i) =>
      call([a, b][i % 2]!.url, 'PUT', `/v1/checks/external/t${i}`, {body: checkWith([['steak', 1, 1000]])}),
    ),
  )
  expect(pushed.map((answer) => answer.status)).toEqual(pushed.map(() => 201))
  // every first attempt has failed, and each delivery waits for its retry, a minute on
  await expect
    .poll(
      async () => {
        const {data} = (await call(a.url, 'GET', '/v1/deliveries?limit=100')).body as {data: {attempts: unknown[]}[]}
        return data.filter((delivery) => delivery.attempts.length === 1).length
      },
      {timeout: 20_000, interval: 50},
    )
    .toBe(DELIVERIES)
  const firsts = receiver.received.length

  const advanced = await call(a.url, 'POST', '/v1/sim/clock/advance', {body: {seconds: 120}})
  expect(advanced.status).toBe(200)
  const retries = receiver.received.length - firsts
  // the endpoint was disabled on the way, and the deliveries not yet retried then were canceled, unsent
  expect((await call(a.url, 'GET', `/v1/webhook-endpoints/${endpoint.body.id}`)).body.status).toBe('disabled')
  expect(retries).toBeLessThan(DELIVERIES)
  expect(advanced.body.attempts).toBe(retries)
})

it('an advance through one of two instances does not count the attempts the other had out before it began', async () => {
  const db = await createTestDatabase()
  cleanup.push(() => db.drop())
  const seedFile = await writeSeed(await makeTempDir())
  const start = () => startServer({port: 0, host: '127.0.0.1', database: db.url, seedFile})
  const [a, b] = (await Promise.all([start(), start()])) as [RunningServer, RunningServer]
  cleanup.push(
    () => a.close(),
    () => b.close(),
  )
  let release!: () => void
  const released = new Promise<number>((resolve) => (release = () => resolve(200)))
  const receiver = await startReceiver(() => released)
  cleanup.push(() => receiver.close())
  const endpoint = await call(a.url, 'POST', '/v1/webhook-endpoints', {
    body: {url: receiver.url, event_types: ['check.created']},
  })
  expect(endpoint.status).toBe(201)
  // each instance claims some of the first attempts and finds the others held: both wait for the others'
  const pushes = 6
  for (let i = 0; i < pushes; i++)
    expect(
      (await call([a, b][i % 2]!.url, 'PUT', `/v1/checks/external/h${i}`, {body: checkWith([['tea', 1, 300]])})).status,
    ).toBe(201)
  await receiver.waitFor(pushes)
  const advanced = call(a.url, 'POST', '/v1/sim/clock/advance', {body: {seconds: 60}})
  // it waits for the attempts out; none is sent while it runs, since each answers 200 once released
  await expect.poll(async () => (await call(a.url, 'GET', '/v1/sim/clock')).body.advance, {interval: 20}).toBeDefined()
  release()
  const {status, body} = await advanced
  expect(status).toBe(200)
  expect(receiver.received.length).toBe(pushes)
  expect(body.attempts).toBe(0)
})
