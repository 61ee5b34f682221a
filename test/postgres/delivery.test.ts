import pg from 'pg'
import {afterEach, describe, expect, it} from 'vitest'
import {lifeLockHeld} from '../../src/postgres/leases.js'
import {scopeOf} from '../../src/postgres/scope.js'
import {PgStorage} from '../../src/postgres/storage.js'
import {createService, seedStore} from '../../src/server/service.js'
import {type RunningServer, type ServeOptions, startServer} from '../../src/server/start.js'
import {checkWith} from '../helpers/checks.js'
import {serveStorage} from '../helpers/serve-storage.js'
import {createTestDatabase, type TestDatabase} from '../helpers/postgres.js'
import {type Received, startReceiver} from '../helpers/receiver.js'
import {databaseBehindRelay, holdOne, type Tap} from '../helpers/relay.js'
import {call, makeTempDir, startServerOn, TEST_SEED, writeSeed} from '../helpers/simulator.js'

/** Attempts one endpoint may have out at once on one instance (the dispatcher's default `perEndpoint`). */
const PER_ENDPOINT = 8
/** Attempts one endpoint may have claimed at once on one instance: its places, and as many ahead of them. */
const CLAIMED = 2 * PER_ENDPOINT

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

async function database(): Promise<TestDatabase> {
  const db = await createTestDatabase()
  cleanup.push(() => db.drop())
  return db
}

/** Resolves once `holds` does, or throws after `ms`. */
async function until(holds: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!holds()) {
    if (Date.now() > deadline) throw new Error(`not so within ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** Two instances of one sandbox on a new database, as behind a load balancer. */
async function twoInstances(
  options: Partial<ServeOptions> = {},
  db?: TestDatabase,
): Promise<[RunningServer, RunningServer]> {
  db ??= await database()
  const seedFile = await writeSeed(await makeTempDir())
  const start = () => startServer({port: 0, host: '127.0.0.1', database: db.url, seedFile, ...options})
  const servers = await Promise.all([start(), start()])
  for (const server of servers) cleanup.push(() => server.close())
  return servers
}

/** A receiver that counts the attempts it gets of each event, by attempt number. */
async function countingReceiver(respond: (req: Received) => number | Promise<number> = () => 200) {
  const receiver = await startReceiver(respond)
  cleanup.push(() => receiver.close())
  const counts = () => {
    const seen = new Map<string, number>()
    for (const {headers} of receiver.received) {
      const key = `${headers['x-tablepay-event-id']} #${headers['x-tablepay-delivery-attempt']}`
      seen.set(key, (seen.get(key) ?? 0) + 1)
    }
    return seen
  }
  return {...receiver, counts}
}

async function subscribe(server: Pick<RunningServer, 'url'>, url: string): Promise<string> {
  const answer = await call(server.url, 'POST', '/v1/webhook-endpoints', {
    body: {url, event_types: ['check.created']},
  })
  expect(answer.status).toBe(201)
  return answer.body.id as string
}

/** `count` new checks, pushed through the instances in turn: one check.created each. */
async function pushChecks(servers: Pick<RunningServer, 'url'>[], count: number, prefix: string): Promise<void> {
  const answers = await Promise.all(
    Array.from({length: count}, (_, i) =>
      call(servers[i % servers.length]!.url, 'PUT', `/v1/checks/external/${prefix}${i}`, {
        body: checkWith([['steak', 1, 1000]]),
      }),
    ),
  )
  expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 201))
}

type Delivery = {id: string; status: string; attempts: unknown[]; next_attempt_at: string | null}

async function deliveries(server: Pick<RunningServer, 'url'>): Promise<Delivery[]> {
  return (await call(server.url, 'GET', '/v1/deliveries?limit=100')).body.data as Delivery[]
}

/** Reads the deliveries until `done` holds for each of `count`, or throws after `ms`. */
async function deliveriesUntil(server: RunningServer, count: number, done: (d: Delivery) => boolean, ms = 20_000) {
  const deadline = Date.now() + ms
  for (;;) {
    const list = await deliveries(server)
    if (list.length === count && list.every(done)) return list
    if (Date.now() > deadline) throw new Error(`deliveries not done within ${ms} ms: ${JSON.stringify(list)}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/**
 * Two instances on one database: `b` as `serve` starts it, and `a`, the one
 * a test advances, over a storage of its own (`storage`), whose claims the
 * test can hold before or after they reach the database (helpers/serve-storage.ts).
 * With `bTap`, `b` reaches the database through a relay with that tap (helpers/relay.ts).
 */
async function advancingAndOther({retrySchedule, bTap}: {retrySchedule?: number[]; bTap?: Tap} = {}) {
  const relayed = bTap ? await databaseBehindRelay(bTap) : undefined
  if (relayed)
    cleanup.push(
      () => relayed.db.drop(),
      () => relayed.link.cut(),
    )
  const db = relayed?.db ?? (await database())
  const seedFile = await writeSeed(await makeTempDir())
  const b = await startServer({port: 0, host: '127.0.0.1', database: relayed?.url ?? db.url, seedFile, retrySchedule})
  cleanup.push(() => b.close())
  const storage = await PgStorage.open({url: db.url})
  cleanup.push(() => storage.close())
  const a = await serveStorage(storage, {retrySchedule})
  cleanup.push(() => a.close())
  return {a, b, storage}
}

/**
 * An instance `a` over a storage of its own (its claims at hand: helpers/serve-storage.ts), alone on a new
 * database when it makes a delivery of one check.created: the receiver holds its first attempt until
 * `answerFirst()`, then answers `status`; every later attempt is answered `later` at once.
 */
async function firstAttemptHeld(status: number, later = 200, {relayed = false} = {}) {
  const db = await database()
  // behind a relay (helpers/relay.ts), a's new connections can be kept from the database while those open go on
  const relay = relayed ? await databaseBehindRelay(undefined, db) : undefined
  if (relay) cleanup.push(() => relay.link.cut())
  const storage = await PgStorage.open(relay ? {url: relay.url, connectTimeoutMs: 500} : {url: db.url})
  cleanup.push(() => storage.close())
  await seedStore(storage, {seed: TEST_SEED})
  let answerFirst!: () => void
  const firstAnswered = new Promise<number>((resolve) => (answerFirst = () => resolve(status)))
  const receiver = await countingReceiver(() => (receiver.received.length === 1 ? firstAnswered : later))
  // the held attempt must not time out before the test lets it end, however slowly a second instance starts
  const a = await serveStorage(storage, {receiverTimeoutMs: 120_000})
  cleanup.push(() => a.close())
  await subscribe(a, receiver.url)
  await pushChecks([a], 1, 'held')
  await receiver.waitFor(1)
  const [delivery] = await deliveries(a)
  return {db, storage, receiver, answerFirst, a, delivery: delivery!, link: relay?.link}
}

describe('delivery across instances on one database', () => {
  it('every delivery is attempted exactly once with both dispatchers running, whichever instance made it', async () => {
    const [a, b] = await twoInstances()
    const receiver = await countingReceiver()
    await subscribe(a, receiver.url)
    await pushChecks([a, b], 30, 'once')
    await receiver.waitFor(30)
    await deliveriesUntil(b, 30, (d) => d.status === 'succeeded')
    // both stopped: every attempt either of them had out has ended and reached the receiver
    await Promise.all([a.close(), b.close()])
    expect(receiver.received).toHaveLength(30)
    expect([...receiver.counts().values()].every((n) => n === 1)).toBe(true)
    expect([...receiver.counts().keys()].every((key) => key.endsWith('#1'))).toBe(true)
  })

  it('a clock advance on one instance runs each retry once, on neither instance again', async () => {
    const {a, b, storage} = await advancingAndOther({retrySchedule: [60, 120, 180]})
    // a has heard of every first attempt, whichever instance made it, and settled its claims of them: what the
    // advance counts begins after
    const firstsHeard = new Set<string>()
    storage.subscribe((changes) => {
      for (const [collection, id, record] of changes)
        if (collection === 'deliveries' && (record as Delivery | null)?.attempts.length === 1) firstsHeard.add(id)
    })
    const receiver = await countingReceiver(() => 500)
    await subscribe(b, receiver.url)
    await pushChecks([a, b], 8, 'retry')
    await deliveriesUntil(b, 8, (d) => d.attempts.length === 1)
    await until(() => firstsHeard.size === 8)
    await a.running.dispatcher.idle()
    const advanced = await call(a.url, 'POST', '/v1/sim/clock/advance', {body: {seconds: 3600}})
    expect(advanced.status).toBe(200)
    // the three retries of each, whichever instance made them
    expect(advanced.body.attempts).toBe(24)
    // the advance answers once every attempt due by its end has run, on whichever instance made it
    const list = await deliveries(b)
    expect(list.map((d) => [d.status, d.attempts.length])).toEqual(list.map(() => ['dead', 4]))
    await Promise.all([a.close(), b.close()])
    expect(receiver.received).toHaveLength(32)
    const counts = receiver.counts()
    expect(counts.size).toBe(32)
    expect([...counts.values()].every((n) => n === 1)).toBe(true)
  })

  it('a delivery made through one instance is retried by the other once the first is gone', async () => {
    const [a, b] = await twoInstances({retrySchedule: [60]})
    let answer = 500
    const receiver = await countingReceiver(() => answer)
    await subscribe(a, receiver.url)
    await pushChecks([a], 1, 'handover')
    await deliveriesUntil(b, 1, (d) => d.attempts.length === 1)
    await a.close()
    answer = 200
    // b never committed this delivery: it knows it from a's changes, and runs its retry on the clock
    const advanced = await call(b.url, 'POST', '/v1/sim/clock/advance', {body: {seconds: 120}})
    expect(advanced.body.attempts).toBe(1)
    const [delivery] = await deliveries(b)
    expect(delivery).toMatchObject({status: 'succeeded', attempts: [{status_code: 500}, {status_code: 200}]})
    expect([...receiver.counts().keys()].map((key) => key.split(' ')[1])).toEqual(['#1', '#2'])
  })

  it("the clock is shared: an advance on one instance moves the other's, and so does a reset", async () => {
    const [a, b] = await twoInstances()
    const clock = async (server: RunningServer) => (await call(server.url, 'GET', '/v1/sim/clock')).body
    // an advance lands a few ms short of its seconds when time passed while it ran: compare with its answer
    const first = (await call(a.url, 'POST', '/v1/sim/clock/advance', {body: {seconds: 7200}})).body
    expect(first.offset_seconds).toBeGreaterThan(7199)
    expect(await clock(b)).toMatchObject({offset_seconds: first.offset_seconds})
    expect(Date.parse((await clock(b)).now) - Date.now()).toBeGreaterThan(7190_000)
    const second = (await call(b.url, 'POST', '/v1/sim/clock/advance', {body: {seconds: 60}})).body
    expect(second.offset_seconds).toBeGreaterThan(first.offset_seconds + 59)
    expect(await clock(a)).toMatchObject({offset_seconds: second.offset_seconds})
    expect((await call(a.url, 'POST', '/v1/sim/clock/reset')).status).toBe(200)
    expect(await clock(b)).toMatchObject({offset_seconds: 0})
  })

  it("advances through both instances at once add up, on both instances' clocks", async () => {
    const [a, b] = await twoInstances()
    const advances = Array.from({length: 12}, (_, i) =>
      call((i % 2 === 0 ? a : b).url, 'POST', '/v1/sim/clock/advance', {body: {seconds: 100}}),
    )
    expect((await Promise.all(advances)).map((answer) => answer.status)).toEqual(Array(12).fill(200))
    for (const server of [a, b]) {
      const {body: clock} = await call(server.url, 'GET', '/v1/sim/clock')
      expect(Math.round(clock.offset_seconds)).toBe(1200)
    }
  })

  it('a restore through one instance waits for an advance running on the other, then puts its clock back', async () => {
    const db = await database()
    const [a, b] = await twoInstances({retrySchedule: [5]}, db)
    // the first attempt fails at once; the retry, which the advance makes, waits for the test
    let answerRetry!: () => void
    const retryAnswered = new Promise<number>((resolve) => (answerRetry = () => resolve(200)))
    const receiver = await countingReceiver((req) =>
      req.headers['x-tablepay-delivery-attempt'] === '1' ? 500 : retryAnswered,
    )
    await subscribe(a, receiver.url)
    expect((await call(a.url, 'POST', '/v1/sim/snapshots', {body: {name: 'at-zero'}})).status).toBe(201)
    await pushChecks([a], 1, 'restored')
    await deliveriesUntil(a, 1, (d) => d.attempts.length === 1)
    const advanced = call(a.url, 'POST', '/v1/sim/clock/advance', {body: {seconds: 20}})
    await until(() => receiver.received.length === 2)
    const restored = call(b.url, 'POST', '/v1/sim/snapshots/at-zero/restore')
    // the restore waits for the clock's lock, which the advance holds, or (wrongly) answers first
    const client = new pg.Client({connectionString: db.url})
    await client.connect()
    cleanup.push(() => client.end())
    const waiting = async () => {
      const {rows} = await client.query("SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")
      return rows.length > 0
    }
    const first = await Promise.race([
      restored.then(() => 'restore answered'),
      expect
        .poll(waiting, {timeout: 10_000})
        .toBe(true)
        .then(() => 'restore waits'),
    ])
    answerRetry()
    expect([(await advanced).status, (await restored).status]).toEqual([200, 200])
    expect(first).toBe('restore waits')
    for (const server of [a, b]) expect((await call(server.url, 'GET', '/v1/sim/clock')).body.offset_seconds).toBe(0)
  })

  it('an instance follows the clock another one saves, with no request of its own', async () => {
    const db = await database()
    const seedFile = await writeSeed(await makeTempDir())
    const a = await startServer({port: 0, host: '127.0.0.1', database: db.url, seedFile})
    cleanup.push(() => a.close())
    const storage = await PgStorage.open({url: db.url})
    cleanup.push(() => storage.close())
    const b = await createService(storage, 'http://127.0.0.1:9', {})
    cleanup.push(() => b.close())
    const advanced = (await call(a.url, 'POST', '/v1/sim/clock/advance', {body: {seconds: 7200}})).body
    expect(advanced.offset_seconds).toBeGreaterThan(7199)
    await until(() => b.dispatcher.clock.offset === advanced.offset_seconds * 1000)
    expect((await call(a.url, 'POST', '/v1/sim/clock/reset')).status).toBe(200)
    await until(() => b.dispatcher.clock.offset === 0)
  })

  it('an instance that could not listen while another moved the clock reads the clock once it listens again', async () => {
    const {db, link, url} = await databaseBehindRelay()
    cleanup.push(
      () => db.drop(),
      () => link.cut(),
    )
    const seedFile = await writeSeed(await makeTempDir())
    const a = await startServer({port: 0, host: '127.0.0.1', database: db.url, seedFile})
    cleanup.push(() => a.close())
    const storage = await PgStorage.open({url, connectTimeoutMs: 500})
    cleanup.push(() => storage.close())
    const b = await createService(storage, 'http://127.0.0.1:9', {})
    cleanup.push(() => b.close())
    // b's network is gone: the database sends a's notification to a session b no longer reads
    link.silence()
    link.drop()
    const advanced = (await call(a.url, 'POST', '/v1/sim/clock/advance', {body: {seconds: 7200}})).body
    expect(b.dispatcher.clock.offset).toBe(0)
    link.speak()
    await until(() => b.dispatcher.clock.offset === advanced.offset_seconds * 1000, 15_000)
  })

  it('an attempt the other instance made before the advancing one could claim it counts once in the advance', async () => {
    const {a, b} = await advancingAndOther()

    const receiver = await countingReceiver(() => 500)
    await subscribe(b, receiver.url)
    await pushChecks([b], 1, 'beaten')
    await deliveriesUntil(b, 1, (d) => d.attempts.length === 1)
    const held = a.holdNextClaim()
    const advanced = call(a.url, 'POST', '/v1/sim/clock/advance', {body: {seconds: 120}})
    const release = await held
    // b follows the clock and makes the retry while a's claim waits
    await deliveriesUntil(b, 1, (d) => d.attempts.length === 2)
    release()
    expect((await advanced).body.attempts).toBe(1)
    expect([...receiver.counts().values()]).toEqual([1, 1])
  })

  it('an attempt the other instance made while the advancing one had it queued, its slots taken, counts once', async () => {
    // b hears the database through a relay that holds what its listening connection hears: the clock's moves too
    const listening = holdOne((sent) => sent.includes('LISTEN'))
    const {a, b, storage} = await advancingAndOther({retrySchedule: [60, 300], bTap: listening.tap})

    // first attempts fail at once; of the retries, the first PER_ENDPOINT wait for the test, the rest fail at once
    // (those claimed ahead send once the first ones have their answers)
    let answerRetries!: () => void
    const retriesAnswered = new Promise<number>((resolve) => (answerRetries = () => resolve(500)))
    let waiting = 0
    const receiver = await countingReceiver((req) =>
      req.headers['x-tablepay-delivery-attempt'] === '2' && waiting++ < PER_ENDPOINT ? retriesAnswered : 500,
    )
    // a has heard of every first attempt, whichever instance made it, and settled its claims of them: what the
    // advance counts begins after
    const firstsHeard = new Set<string>()
    storage.subscribe((changes) => {
      for (const [collection, id, record] of changes)
        if (collection === 'deliveries' && (record as Delivery | null)?.attempts.length === 1) firstsHeard.add(id)
    })
    await subscribe(b, receiver.url)
    await pushChecks([b], CLAIMED + 1, 'queued')
    await deliveriesUntil(b, CLAIMED + 1, (d) => d.attempts.length === 1)
    await until(() => firstsHeard.size === CLAIMED + 1)
    await a.running.dispatcher.idle()
    listening.hold()
    const advanced = call(a.url, 'POST', '/v1/sim/clock/advance', {body: {seconds: 120}})
    // a has an endpoint's share of its retries out or claimed ahead, the last one queued behind them
    await until(() => waiting === PER_ENDPOINT)
    // a hears b's record of that last one before its slots come free
    let heard!: () => void
    const recordHeard = new Promise<void>((resolve) => (heard = resolve))
    storage.subscribe((changes, remote) => {
      if (remote && changes.some(([, , record]) => (record as Delivery | null)?.attempts.length === 2)) heard()
    })
    // b hears the clock move, finds a's leases on the others, and makes the last one
    listening.release()
    await recordHeard
    answerRetries()
    expect((await advanced).body.attempts).toBe(CLAIMED + 1)
    expect(receiver.received).toHaveLength(2 * (CLAIMED + 1))
    expect([...receiver.counts().values()].every((n) => n === 1)).toBe(true)
  })

  it('an attempt the other instance held when the advancing one claimed it counts once, its record arriving before the claim answers', async () => {
    const {a, b, storage} = await advancingAndOther()

    // the first attempt fails at once; the retry is held by the receiver, so its instance holds the lease meanwhile
    let answerRetry!: () => void
    const retried = new Promise<number>((resolve) => (answerRetry = () => resolve(500)))
    const receiver = await countingReceiver((req) =>
      req.headers['x-tablepay-delivery-attempt'] === '1' ? 500 : retried,
    )
    await subscribe(b, receiver.url)
    await pushChecks([b], 1, 'held')
    await deliveriesUntil(b, 1, (d) => d.attempts.length === 1)
    // a's dispatcher hears another instance's changes before this listener, which comes after it
    let heard!: () => void
    const retryHeard = new Promise<void>((resolve) => (heard = resolve))
    storage.subscribe((changes, remote) => {
      if (remote && changes.some(([, , record]) => (record as Delivery | null)?.attempts.length === 2)) heard()
    })
    a.wrapNextClaim(async (claim) => {
      await receiver.waitFor(2)
      const answer = await claim()
      expect(answer).toBe('held')
      answerRetry()
      await retryHeard
      return answer
    })
    const advanced = await call(a.url, 'POST', '/v1/sim/clock/advance', {body: {seconds: 120}})
    expect(advanced.body.attempts).toBe(1)
    expect([...receiver.counts().values()]).toEqual([1, 1])
  })

  it('a retry asked while one instance has an attempt out waits for its record on the other instance too', async () => {
    const {db, receiver, answerFirst, a, delivery} = await firstAttemptHeld(200)
    const storage = await PgStorage.open({url: db.url})
    cleanup.push(() => storage.close())
    const b = await serveStorage(storage)
    cleanup.push(() => b.close())
    // what b's claims of that delivery answer
    const ledger = b.running.service.deliveries
    const claim = ledger.claim.bind(ledger)
    const claims: {dueAt: number; answer: Awaited<ReturnType<typeof claim>>}[] = []
    ledger.claim = async (id, dueAt, leaseMs) => {
      const answer = await claim(id, dueAt, leaseMs)
      if (id === delivery.id) claims.push({dueAt, answer})
      return answer
    }

    const retried = await call(b.url, 'POST', `/v1/deliveries/${delivery.id}/retry`)
    expect(retried.status).toBe(200)
    const retryDue = Date.parse(retried.body.next_attempt_at)
    await expect.poll(() => claims.some((made) => made.dueAt === retryDue)).toBe(true)
    expect(claims.find((made) => made.dueAt === retryDue)!.answer).toBe('held')

    answerFirst()
    await expect.poll(async () => (await deliveries(a))[0]!.attempts.length).toBe(2)
    expect((await deliveries(a))[0]).toMatchObject({status: 'succeeded'})
    expect(receiver.received.map(({headers}) => headers['x-tablepay-delivery-attempt'])).toEqual(['1', '2'])
  })

  it('a success recorded by one instance supersedes the delivery the other has out: that attempt is recorded, and none follows', async () => {
    // the original's first attempt fails once the test lets it; the resend's is answered at once
    const {db, receiver, answerFirst, a, delivery: original} = await firstAttemptHeld(500)
    const b = await startServer({port: 0, host: '127.0.0.1', database: db.url})
    cleanup.push(() => b.close())
    // a claims nothing more until the resend has succeeded: b makes its attempt
    let resendDone!: () => void
    const done = new Promise<void>((resolve) => (resendDone = resolve))
    const ledger = a.running.service.deliveries
    const claim = ledger.claim.bind(ledger)
    ledger.claim = async (...args) => (args[0] === original.id ? claim(...args) : done.then(() => claim(...args)))

    const event = (await call(b.url, 'GET', '/v1/events')).body.data[0]
    const resent = await call(b.url, 'POST', `/v1/events/${event.id}/resend`, {
      body: {endpoint_id: (await call(b.url, 'GET', '/v1/webhook-endpoints')).body.data[0].id},
    })
    expect(resent.status).toBe(201)
    const get = async (id: string) => (await call(a.url, 'GET', `/v1/deliveries/${id}`)).body
    await until(() => receiver.received.length === 2)
    await expect.poll(async () => (await get(resent.body.id)).status).toBe('succeeded')
    resendDone()
    expect(await get(original.id)).toMatchObject({status: 'superseded', superseded_by: resent.body.id, attempts: []})

    answerFirst()
    await expect.poll(async () => (await get(original.id)).attempts.length).toBe(1)
    expect(await get(original.id)).toMatchObject({
      status: 'superseded',
      superseded_by: resent.body.id,
      next_attempt_at: null,
      attempts: [{status_code: 500}],
    })
    expect((await call(b.url, 'POST', '/v1/sim/clock/advance', {body: {seconds: 3600}})).body.attempts).toBe(0)
    expect(receiver.received).toHaveLength(2)
  })

  it('an attempt the other instance took over and recorded meanwhile is a copy, numbered as sent: the retry left is the second try', async () => {
    // every attempt fails; the first one once the test lets it
    const {db, storage, receiver, answerFirst, link} = await firstAttemptHeld(500, 500, {relayed: true})
    const b = await startServer({port: 0, host: '127.0.0.1', database: db.url})
    cleanup.push(() => b.close())

    // a's session ends, as in a restart of the database: b takes the attempt over, sends it again and records it
    const admin = new pg.Client({connectionString: db.url})
    await admin.connect()
    cleanup.push(() => admin.end())
    const lifeLock = `FROM pg_locks WHERE ${lifeLockHeld('$1', '$2')}`
    const aLock = [scopeOf('public').lifeLock, storage.shared!.owner]
    // kept from coming back until b has taken the attempt over: back a second after its loss, a's session would
    // hold it again before a claim of b's on a loaded machine, and b would wait for a's record of it
    link!.silence()
    await admin.query(`SELECT pg_terminate_backend(pid) ${lifeLock}`, aLock)
    const [taken] = await deliveriesUntil(b, 1, (d) => d.attempts.length === 1)
    link!.speak()
    answerFirst()
    const [both] = await deliveriesUntil(b, 1, (d) => d.attempts.length === 2)
    expect(both!.attempts).toEqual([
      expect.objectContaining({attempt: 1, status_code: 500}),
      expect.objectContaining({attempt: 1, status_code: 500, duplicate: true}),
    ])
    // the retry is the one b's record set: one minute after the due time, not the wait after a second try
    expect(both).toMatchObject({status: 'pending', next_attempt_at: taken!.next_attempt_at})
    expect([...receiver.counts()]).toEqual([[expect.stringMatching(/ #1$/), 2]])

    // that retry is the second try: the wait after it is the schedule's second, five minutes. Once a's session
    // is back: a claim a made without it would be free to b too, and both would send (docs/postgres.md)
    const back = async () => (await admin.query(`SELECT pid ${lifeLock}`, aLock)).rows.length
    await expect.poll(back, {timeout: 10_000}).toBe(1)
    expect((await call(b.url, 'POST', '/v1/sim/clock/advance', {body: {seconds: 60}})).body.attempts).toBe(1)
    const [retried] = await deliveriesUntil(b, 1, (d) => d.attempts.length === 3)
    expect(retried!.attempts[2]).toMatchObject({attempt: 3, scheduled_at: taken!.next_attempt_at})
    expect(retried!.attempts[2]).not.toHaveProperty('duplicate')
    expect(retried!.next_attempt_at).toBe(new Date(Date.parse(taken!.next_attempt_at!) + 300_000).toISOString())
  })
})

/**
 * A server on a new database behind a relay. `lose(text, request)` sends the request; the database commits
 * it (its COMMIT holds `text`), its answer is held and the network drops, so the request answers 503; then
 * the network is back.
 */
async function serverLosingCommits(more: Partial<ServeOptions> = {}) {
  let armed: string | undefined
  const lost = holdOne((sent) => armed !== undefined && sent.includes('COMMIT') && sent.includes(armed), true)
  const {db, link, url} = await databaseBehindRelay(lost.tap)
  cleanup.push(() => db.drop())
  const server = await startServerOn(url, more)
  cleanup.push(
    () => link.cut().catch(() => {}),
    () => server.close(),
  )
  const lose = async (text: string, request: () => ReturnType<typeof call>) => {
    armed = text
    const answer = request()
    await lost.holding
    await link.cut()
    lost.release()
    expect((await answer).status).toBe(503)
    await link.open()
  }
  return {server, lose}
}

describe('delivery from one instance', () => {
  it("a push whose COMMIT's answer was lost: its delivery is sent once the instance hears the database again", async () => {
    const receiver = await countingReceiver()
    const {server, lose} = await serverLosingCommits()
    await subscribe(server, receiver.url)
    await lose('t-lost', () =>
      call(server.url, 'PUT', '/v1/checks/external/t-lost', {body: checkWith([['a', 1, 100]])}),
    )
    await receiver.waitFor(1)
    expect([...receiver.counts().values()]).toEqual([1])
  })

  it("a retry whose COMMIT's answer was lost is sent when it is due, not at the due time the instance held before", async () => {
    // the first attempt fails, and the next is due an hour later; the retry asks for it now
    const receiver = await countingReceiver(() => (receiver.received.length === 1 ? 500 : 200))
    const {server, lose} = await serverLosingCommits({retrySchedule: [3600]})
    const endpoint = await subscribe(server, receiver.url)
    await pushChecks([server], 1, 'late')
    await receiver.waitFor(1)
    const failed = async () =>
      (await call(server.url, 'GET', `/v1/deliveries?endpoint_id=${endpoint}`)).body.data.filter(
        (d: Delivery) => d.attempts.length === 1,
      )
    await expect.poll(async () => (await failed()).length).toBe(1)
    const [delivery] = await failed()
    await lose(delivery.id, () => call(server.url, 'POST', `/v1/deliveries/${delivery.id}/retry`))
    await receiver.waitFor(2)
    expect([...receiver.counts().values()]).toEqual([1, 1])
  })

  it("a transaction left open on a delivery's row holds back that delivery alone: the next ones go, and it once let go", async () => {
    const db = await database()
    const server = await startServerOn(db.url, {retrySchedule: [60]})
    cleanup.push(() => server.close())
    const receiver = await countingReceiver(() => (receiver.received.length === 1 ? 500 : 200))
    await subscribe(server, receiver.url)
    await pushChecks([server], 1, 'open')
    const [failed] = await deliveriesUntil(server, 1, (d) => d.attempts.length === 1)
    // as an instance paused mid-unit, or a psql session of the user's own, holds it
    const other = new pg.Client({connectionString: db.url})
    await other.connect()
    cleanup.push(() => other.end())
    await other.query('BEGIN')
    await other.query('SELECT 1 FROM deliveries WHERE id = $1 FOR UPDATE', [failed!.id])
    // its retry falls due: the instance claims it, and finds its row held
    const advanced = call(server.url, 'POST', '/v1/sim/clock/advance', {body: {seconds: 120}})
    await pushChecks([server], 1, 'after')
    await receiver.waitFor(2)
    expect([...receiver.counts().keys()].map((key) => key.split(' ')[1])).toEqual(['#1', '#1'])
    await other.query('ROLLBACK')
    expect((await advanced).status).toBe(200)
    expect([...receiver.counts().values()]).toEqual([1, 1, 1])
    expect((await deliveries(server)).find((d) => d.id === failed!.id)).toMatchObject({status: 'succeeded'})
  })

  it("an endpoint's next attempts are claimed while its places wait on its receiver: 8 requests open, 16 leases", async () => {
    const db = await database()
    const server = await startServerOn(db.url)
    cleanup.push(() => server.close())
    // the receiver holds every answer until told
    let answersGo!: () => void
    const answers = new Promise<number>((resolve) => (answersGo = () => resolve(200)))
    const receiver = await countingReceiver(() => answers)
    cleanup.push(async () => answersGo())
    await subscribe(server, receiver.url)
    await pushChecks([server], 20, 'ahead')
    await receiver.waitFor(PER_ENDPOINT)
    const client = new pg.Client({connectionString: db.url})
    await client.connect()
    cleanup.push(() => client.end())
    const leased = async () =>
      (await client.query('SELECT count(*)::int AS n FROM deliveries WHERE lease_owner IS NOT NULL')).rows[0].n
    await expect.poll(leased).toBe(CLAIMED)
    expect(receiver.received).toHaveLength(PER_ENDPOINT)
    answersGo()
    await deliveriesUntil(server, 20, (d) => d.status === 'succeeded')
    expect(receiver.received).toHaveLength(20)
    expect([...receiver.counts().values()].every((n) => n === 1)).toBe(true)
  })
})
