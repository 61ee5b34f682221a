import {afterEach, expect, it, vi} from 'vitest'
import {type RunningServer, startServer} from '../../src/server/start.js'
import {checkWith} from '../helpers/checks.js'
import {startCliServer} from '../helpers/cli.js'
import {createTestDatabase} from '../helpers/postgres.js'
import {startReceiver} from '../helpers/receiver.js'
import {databaseBehindRelay} from '../helpers/relay.js'
import {call, startServerOn} from '../helpers/simulator.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

/** `promise`, or a failure naming `what` after `ms`. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)
  })
  return Promise.race([promise, late]).finally(() => clearTimeout(timer))
}

it('an instance killed mid-attempt leaves the delivery to another, as soon as the database sees it gone', async () => {
  const db = await createTestDatabase()
  cleanup.push(() => db.drop())
  // the first attempt is held open: the instance that made it dies with it out
  let requests = 0
  const receiver = await startReceiver(() => (requests++ === 0 ? 'hang' : 200))
  cleanup.push(() => receiver.close())
  // a's lease on its attempt is its receiver timeout and 30 s more: 90 s, longer than this test may take
  const a = await startCliServer(['--database', db.url, '--seed', 'fixtures/seed.json', '--receiver-timeout', '60s'])
  cleanup.push(() => a.kill('SIGKILL'))
  const aUrl = a.url.replace(/\/v1$/, '')
  const endpoint = await call(aUrl, 'POST', '/v1/webhook-endpoints', {
    body: {url: receiver.url, event_types: ['check.created']},
  })
  expect(endpoint.status).toBe(201)
  const pushed = await call(aUrl, 'PUT', '/v1/checks/external/t1', {body: checkWith([['steak', 1, 1000]])})
  expect(pushed.status).toBe(201)
  await within(receiver.waitFor(1), 10_000, "a's attempt")

  const b: RunningServer = await startServer({port: 0, host: '127.0.0.1', database: db.url})
  cleanup.push(() => b.close())
  // an advance on b does not take over the attempt a has out: it waits for it, as for an attempt of its own
  const [pending] = (await call(b.url, 'GET', '/v1/deliveries')).body.data
  const advance = call(b.url, 'POST', '/v1/sim/clock/advance', {body: {seconds: 3600}})
  await expect
    .poll(async () => (await call(b.url, 'GET', '/v1/sim/clock')).body.advance?.waiting_for, {timeout: 10_000})
    .toMatchObject([{delivery_id: pending.id}])
  expect(receiver.received).toHaveLength(1)

  expect(await a.kill('SIGKILL')).toBeNull()
  await within(receiver.waitFor(2), 20_000, "b's attempt after a died")
  expect((await within(advance, 10_000, "b's advance")).status).toBe(200)
  const [first, second] = receiver.received
  expect(second!.headers['x-tablepay-event-id']).toBe(first!.headers['x-tablepay-event-id'])
  // a never recorded its attempt: b's is the delivery's first, and it succeeded
  expect(second!.headers['x-tablepay-delivery-attempt']).toBe('1')
  const deliveries = (await call(b.url, 'GET', '/v1/deliveries')).body.data
  expect(deliveries).toMatchObject([{status: 'succeeded', attempts: [{attempt: 1, status_code: 200}]}])
  expect(receiver.received).toHaveLength(2)
})

it('an attempt whose record was lost with the database is made again once the database is back', async () => {
  const {db, link, url} = await databaseBehindRelay()
  cleanup.push(() => db.drop())
  cleanup.push(() => link.cut().catch(() => {}))
  // the first attempt is answered only once the database is out of reach: its result cannot be recorded
  let answerFirst: () => void = () => {}
  const first = new Promise<number>((resolve) => (answerFirst = () => resolve(200)))
  let requests = 0
  const receiver = await startReceiver(() => (requests++ === 0 ? first : 200))
  cleanup.push(() => receiver.close())
  const server = await startServerOn(url)
  cleanup.push(() => server.close())
  const created = await call(server.url, 'POST', '/v1/webhook-endpoints', {
    body: {url: receiver.url, event_types: ['check.created']},
  })
  expect(created.status).toBe(201)
  expect((await call(server.url, 'PUT', '/v1/checks/external/t1', {body: checkWith([['a', 1, 100]])})).status).toBe(201)
  await within(receiver.waitFor(1), 10_000, 'the first attempt')

  const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
  cleanup.push(async () => logged.mockRestore())
  await link.cut()
  answerFirst()
  const deliveryLine = () =>
    logged.mock.calls.map((args) => String(args[0])).find((line) => line.startsWith('[tablepay] delivery'))
  await expect.poll(deliveryLine, {timeout: 10_000}).toBeDefined()
  // the server's line says what becomes of the delivery, without a stack trace
  expect(deliveryLine()).toMatch(
    /^\[tablepay\] delivery dlv_\w+: its attempt could not be recorded \(postgres: the database cannot be reached or used \(.+\)\)\. It stays pending and is attempted again once the storage works: at once when a database is back, .*\.$/,
  )
  await link.open()
  // at least once: the attempt is made again, and this time recorded
  await within(receiver.waitFor(2), 20_000, 'the attempt made again')
  await expect
    .poll(async () => (await call(server.url, 'GET', '/v1/deliveries')).body?.data?.[0]?.status, {timeout: 10_000})
    .toBe('succeeded')
  const [delivery] = (await call(server.url, 'GET', '/v1/deliveries')).body.data
  expect(delivery.attempts).toMatchObject([{attempt: 1, status_code: 200}])
})
