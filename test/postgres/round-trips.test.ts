import pg from 'pg'
import {afterEach, expect, it} from 'vitest'
import {lifeLockHeld} from '../../src/postgres/leases.js'
import {PgStorage} from '../../src/postgres/storage.js'
import type {UnitOfWork} from '../../src/service/storage.js'
import {type RunningServer, startServer} from '../../src/server/start.js'
import {checkWith} from '../helpers/checks.js'
import {serviceOver} from '../service/service.js'
import {startReceiver} from '../helpers/receiver.js'
import {untilLockWaited} from '../helpers/postgres.js'
import {databaseBehindRelay} from '../helpers/relay.js'
import {call, makeTempDir, writeSeed} from '../helpers/simulator.js'
import {type RoundTrip, roundTrips, transactions} from '../helpers/wire.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

/** A database reached through a relay that reads the round trips sent to it off the wire. */
async function databaseOnWire(): Promise<{url: string; trips: RoundTrip[]}> {
  const wire = roundTrips()
  const {db, link, url} = await databaseBehindRelay(wire.tap)
  cleanup.push(() => db.drop())
  cleanup.push(() => link.cut().catch(() => {}))
  return {url, trips: wire.trips}
}

/** A server on the database at `url`, stopped after the test. */
async function serverOn(url: string): Promise<RunningServer> {
  const seedFile = await writeSeed(await makeTempDir())
  const server = await startServer({port: 0, host: '127.0.0.1', database: url, seedFile})
  cleanup.push(() => server.close())
  return server
}

async function serverOnWire(): Promise<{server: RunningServer; trips: RoundTrip[]; url: string}> {
  const {url, trips} = await databaseOnWire()
  return {server: await serverOn(url), trips, url}
}

async function storageOnWire(): Promise<{storage: PgStorage; trips: RoundTrip[]}> {
  const {url, trips} = await databaseOnWire()
  const storage = await PgStorage.open({url})
  cleanup.push(() => storage.close())
  return {storage, trips}
}

const sqlOf = (tx: RoundTrip[]) => tx.map((trip) => trip.sql.join('; '))

/** What a round trip runs, without the `PREPARE`s a connection's first use of a statement adds before it. */
const executed = (sql: string) => sql.replace(/^PREPARE [^;]*;\n/gm, '')

/** The transactions sent from round trip `from` on that write events: a push's that changed its check. */
const changing = (trips: RoundTrip[], from: number) =>
  transactions(trips.slice(from)).filter((tx) => sqlOf(tx).some((sql) => /EXECUTE tp_\w+_events\(/.test(sql)))

it('a changing push is 2 round trips: BEGIN with the check and the endpoints, the writes with COMMIT', async () => {
  const {trips, url, ...first} = await serverOnWire()
  let server = first.server
  const receiver = await startReceiver()
  cleanup.push(() => receiver.close())
  const endpoint = await call(server.url, 'POST', '/v1/webhook-endpoints', {
    body: {url: receiver.url, event_types: ['check.created', 'check.updated']},
  })
  expect(endpoint.status).toBe(201)
  const push = (quantity: number, extra = {}) =>
    call(server.url, 'PUT', '/v1/checks/external/rt1', {body: checkWith([['steak', quantity, 1000]], extra)})

  // a new check reads the account's locations too: 3; so does a move to another location (none here)
  for (const [quantity, extra, status, most] of [
    [1, {}, 201, 3],
    [2, {}, 200, 2],
    [3, {location_id: 'loc_main'}, 200, 2],
    [4, {}, 200, 2],
  ] as const) {
    const from = trips.length
    expect((await push(quantity, extra)).status).toBe(status)
    const [tx, ...more] = changing(trips, from)
    expect(more).toEqual([])
    const sent = sqlOf(tx!)
    expect(sent.length, sent.join('\n')).toBeLessThanOrEqual(most)
    // the lock on the check (its text, when the instance keeps it) and the endpoints open the transaction; the
    // writes, their notice (alone, the commit number only: src/postgres/notice.ts) and COMMIT close it
    expect(executed(sent[0]!)).toMatch(
      /^BEGIN\b[\s\S]*EXECUTE tp_check_(text_)?by_external_id\([\s\S]*EXECUTE tp_endpoints\(\S+\)$/,
    )
    expect(executed(sent.at(-1)!)).toMatch(
      /^EXECUTE tp_put_checks\([\s\S]*EXECUTE tp_\w+_events\([\s\S]*EXECUTE tp_\w+_deliveries\([\s\S]*EXECUTE tp_commit_number;\nCOMMIT$/,
    )
    if (status === 200) expect(sent.join('\n')).not.toMatch(/FROM locations/)
  }
  await receiver.waitFor(4)

  // a push that changes nothing: nothing, while the instance is alone and keeps the check it wrote
  // (check-cache.test.ts); of a check it does not keep (here, after a restart), its read, then COMMIT
  const replayUnits = async () => {
    const from = trips.length
    const replay = await push(4)
    expect([replay.status, replay.headers.get('x-tablepay-push-result')]).toEqual([200, 'unchanged'])
    return transactions(trips.slice(from))
      .filter((tx) => /tp_check_(text_)?by_external_id/.test(sqlOf(tx)[0]!))
      .map(sqlOf)
  }
  expect(await replayUnits()).toEqual([])
  await server.close()
  server = await serverOn(url)
  expect(await replayUnits()).toEqual([[expect.stringMatching(/\bBEGIN\b/), 'COMMIT']])
})

it('the statements of a push are prepared once per connection, each by the first query that runs it', async () => {
  const {storage, trips} = await storageOnWire()
  const put = (id: string) =>
    storage.unit(async (tx) => {
      await tx.checkByExternalId('acct_a', id)
      tx.put('events', `evt_${id}`, {id: `evt_${id}`, account_id: 'acct_a', object: 'event'} as never)
    })
  await put('x1')
  const from = trips.length
  await put('x2')
  const sent = trips.slice(from).flatMap((trip) => trip.sql)
  expect(sent).toHaveLength(2)
  expect(sent.join('\n')).not.toMatch(/PREPARE/)
  expect(await storage.get('events', 'evt_x2')).toEqual({id: 'evt_x2', account_id: 'acct_a', object: 'event'})
})

it('a unit that reads and writes nothing sends nothing; one that only writes is one round trip', async () => {
  const {storage, trips} = await storageOnWire()
  let from = trips.length
  expect(await storage.unit(async () => 'nothing')).toBe('nothing')
  expect(trips.slice(from)).toEqual([])

  from = trips.length
  const record = {id: 'evt_1', account_id: 'acct_a', object: 'event', type: 'check.created'}
  await storage.unit(async (tx) => tx.put('events', 'evt_1', record as never))
  expect(sqlOf(trips.slice(from)).map(executed)).toEqual([
    expect.stringMatching(/^BEGIN\b[\s\S]*EXECUTE tp_put_events\([\s\S]*COMMIT$/),
  ])
  expect(await storage.get('events', 'evt_1')).toEqual(record)
})

it('values sent as literals come back as they were: quotes, backslashes, NUL, a placeholder', async () => {
  const {storage} = await storageOnWire()
  const odd = `it's \\ "quoted" \\' $1 $$ \u0000 é`
  const id = `evt_${odd}`
  const record = {id, account_id: `acct_${odd}`, object: 'event', type: odd, note: odd}
  await storage.unit(async (tx) => tx.put('events', id, record as never))
  // a unit's first read opens the transaction and carries its values as literals: a get, a filtered list
  expect(JSON.stringify(await storage.unit((tx) => tx.get('events', id)))).toBe(JSON.stringify(record))
  const listed = await storage.unit((tx) => tx.list('events', `acct_${odd}`, {type: odd as never}))
  expect(JSON.stringify(listed)).toBe(JSON.stringify([record]))
  await storage.unit(async (tx) => tx.delete('events', id))
  expect(await storage.get('events', id)).toBeUndefined()
})

it('pushes of one account do not take turns on its endpoints: one goes on while another holds them', async () => {
  const {storage} = await storageOnWire()
  const endpoint = {id: 'we_1', account_id: 'acct_a', object: 'webhook_endpoint', url: 'http://127.0.0.1:9/'}
  await storage.unit(async (tx) => tx.put('webhook_endpoints', 'we_1', endpoint as never))
  const push = (externalId: string, hold?: {read: () => void; held: Promise<void>}) =>
    storage.unit(async (tx) => {
      await tx.checkByExternalId('acct_a', externalId)
      const endpoints = await tx.list('webhook_endpoints', 'acct_a')
      hold?.read()
      await hold?.held
      tx.put('events', `evt_${externalId}`, {id: `evt_${externalId}`, account_id: 'acct_a'} as never)
      return endpoints
    })
  let release!: () => void
  let read!: () => void
  const locked = new Promise<void>((resolve) => (read = resolve))
  const first = push('x1', {read, held: new Promise<void>((resolve) => (release = resolve))})
  await locked
  // the first holds its lock on the endpoint until released; the second reads, writes and commits meanwhile
  expect(await push('x2')).toEqual([endpoint])
  expect(await storage.get('events', 'evt_x1')).toBeUndefined()
  release()
  expect(await first).toEqual([endpoint])
})

/**
 * Makes `records` of `collection` in this order, holds `held` in another transaction while a unit runs `read`,
 * and answers which of the others the unit had locked once it waited for `held`, and what it read.
 */
async function lockedBeforeWaiting<T>(
  collection: 'webhook_endpoints' | 'deliveries',
  records: {id: string; chaos?: object}[],
  held: string,
  read: (tx: UnitOfWork) => Promise<T>,
): Promise<{locked: string[]; read: T}> {
  const {url} = await databaseOnWire()
  const storage = await PgStorage.open({url})
  cleanup.push(() => storage.close())
  for (const record of records)
    await storage.unit(async (tx) =>
      tx.put(collection, record.id, {account_id: 'acct_a', event_id: 'evt_1', ...record} as never),
    )
  const other = new pg.Client({connectionString: url})
  await other.connect()
  cleanup.push(() => other.end())
  await other.query('BEGIN')
  await other.query(`SELECT 1 FROM ${collection} WHERE id = '${held}' FOR UPDATE`)
  const reading = storage.unit(read)
  await untilLockWaited(other, 'the unit')
  const locked: string[] = []
  for (const {id} of records.filter((record) => record.id !== held)) {
    await other.query('SAVEPOINT probe')
    const refused = await other.query(`SELECT 1 FROM ${collection} WHERE id = '${id}' FOR UPDATE NOWAIT`).then(
      () => false,
      (error: {code?: string}) => error.code === '55P03',
    )
    await other.query(refused ? 'ROLLBACK TO SAVEPOINT probe' : 'RELEASE SAVEPOINT probe')
    if (refused) locked.push(id)
  }
  await other.query('ROLLBACK')
  return {locked, read: await reading}
}

const ids = (records: readonly ({id: string} | undefined)[]) => records.map((record) => record?.id)
const chaos = {duplicate: 0.5}

it("a unit locks an account's endpoints in the order of their ids, as a record of attempts does, and lists them as made", async () => {
  const made = [
    {id: 'we_b', chaos},
    {id: 'we_a', chaos},
  ]
  const {locked, read} = await lockedBeforeWaiting('webhook_endpoints', made, 'we_b', (tx) =>
    tx.list('webhook_endpoints', 'acct_a'),
  )
  expect(locked).toEqual(['we_a'])
  expect(ids(read)).toEqual(['we_b', 'we_a'])
})

it('a record of attempts locks the calm endpoints it reads before those under chaos, as a push does', async () => {
  const made = [{id: 'we_a', chaos}, {id: 'we_b'}]
  const {locked, read} = await lockedBeforeWaiting('webhook_endpoints', made, 'we_b', (tx) =>
    tx.getMany('webhook_endpoints', ['we_a', 'we_b']),
  )
  // it waits for the calm one, holding none under chaos
  expect(locked).toEqual([])
  expect(ids(read)).toEqual(['we_a', 'we_b'])
})

it('a unit locks the deliveries it lists in the order of their ids, as it reads them by id, and lists them as made', async () => {
  const {locked, read} = await lockedBeforeWaiting('deliveries', [{id: 'dlv_b'}, {id: 'dlv_a'}], 'dlv_b', (tx) =>
    tx.list('deliveries', 'acct_a', {event_id: 'evt_1'}),
  )
  expect(locked).toEqual(['dlv_a'])
  expect(ids(read)).toEqual(['dlv_b', 'dlv_a'])
})

it('reads a unit asks for together go with its BEGIN in one round trip, each answered its own, prepared once', async () => {
  const {storage, trips} = await storageOnWire()
  const event = (id: string) => ({id, account_id: 'acct_a', object: 'event'})
  await storage.unit(async (tx) =>
    ['evt_1', 'evt_2', 'evt_3'].forEach((id) => tx.put('events', id, event(id) as never)),
  )
  const reads = (tx: UnitOfWork) =>
    Promise.all([
      tx.get('events', 'evt_2'),
      tx.getMany('events', ['evt_3', 'evt_0', 'evt_1']),
      tx.get('events', 'evt_0'),
    ])
  let from = trips.length
  expect(await storage.unit(reads)).toEqual([event('evt_2'), [event('evt_3'), undefined, event('evt_1')], undefined])
  const opening =
    /^BEGIN\b[^\n]*; EXECUTE (tpo_\d+)\('evt_2'\); EXECUTE tpo_\d+\(ARRAY\['evt_3', 'evt_0', 'evt_1'\]\); EXECUTE \1\('evt_0'\)$/
  expect(sqlOf(trips.slice(from)).map(executed)).toEqual([expect.stringMatching(opening), 'COMMIT'])
  // an empty list of ids opens a unit too
  expect(await storage.unit((tx) => tx.getMany('events', []))).toEqual([])
  // the connection's next unit runs them as prepared: parsed and planned once, not at each unit
  from = trips.length
  await storage.unit(reads)
  expect(sqlOf(trips.slice(from))).toEqual([expect.stringMatching(opening), 'COMMIT'])
})

it('claims asked in one turn are one UPDATE, each answered its own: won, held by another instance, not due', async () => {
  const wire = roundTrips()
  const {db, link, url} = await databaseBehindRelay(wire.tap)
  cleanup.push(() => db.drop())
  cleanup.push(() => link.cut().catch(() => {}))
  const [a, b] = await Promise.all([PgStorage.open({url}), PgStorage.open({url: db.url})])
  cleanup.push(
    () => a.close(),
    () => b.close(),
  )
  const due = Date.parse('2026-01-01T00:00:00.000Z')
  const delivery = (id: string, next: number) => ({
    id,
    object: 'delivery',
    account_id: 'acct_a',
    endpoint_id: 'we_1',
    event_id: 'evt_1',
    status: 'pending',
    attempts: [],
    next_attempt_at: new Date(next).toISOString(),
  })
  await a.unit(async (tx) => {
    for (const [id, next] of [
      ['dlv_1', due],
      ['dlv_2', due],
      ['dlv_3', due + 60_000],
    ] as const)
      tx.put('deliveries', id, delivery(id, next) as never)
  })
  expect(await b.shared!.claim('dlv_2', due, 60_000)).toMatchObject({delivery: {id: 'dlv_2'}})
  const from = wire.trips.length
  const claims = await Promise.all(['dlv_1', 'dlv_2', 'dlv_3'].map((id) => a.shared!.claim(id, due, 60_000)))
  expect(claims).toEqual([expect.objectContaining({delivery: delivery('dlv_1', due)}), 'held', undefined])
  // the UPDATE of all three, then the look at the two it did not win
  const sent = sqlOf(wire.trips.slice(from))
  expect(sent.filter((sql) => /^UPDATE deliveries\b/.test(sql))).toHaveLength(1)
  expect(sent).toHaveLength(2)
  // an instance tests its own life with a try of a lock: a look at pg_locks reads every connection slot's locks;
  // the claim looks only for another instance whose lease is held, and the look at those lost not at all
  const looks = sent.map((sql) => sql.split('pg_locks').length - 1)
  expect(looks).toEqual([1, 0])
  expect(sent[0]).toContain(`pg_locks WHERE ${lifeLockHeld('$3', 'lease_owner::oid')}`)
})

/** A service on the wire keeping `maxEvents` events, after `versions` pushes of one check (an event each). */
async function retentionOnWire(maxEvents: number, versions: number) {
  const {storage, trips} = await storageOnWire()
  const {service} = await serviceOver(storage, {maxEvents})
  for (let version = 1; version <= versions; version++)
    await service.checks.push('acct_demo', 't1', checkWith([['a', version, 500]], {version}))
  return {service, trips, from: trips.length}
}

it("a retention pass reads its events' deliveries and fan-out marks 32 events at a time, not one by one", async () => {
  const {service, trips, from} = await retentionOnWire(10, 75)
  expect((await service.retention.prune()).events).toBe(65)
  // the accounts; acct_demo's BEGIN with the count; the page of 66 ids; its slices of 32, 32 and 2, two reads each
  // (the deliveries unlocked, outside the unit); the 66th event's age; the keys' page; the deletes (no delivery to
  // lock first: no endpoint); then the kept places' and changes' trims, and acct_other's four. A read per event,
  // let alone two, would be 65 more.
  expect(trips.length - from).toBeLessThanOrEqual(18)
})

it('a retention pass below the bound whose oldest event is not past its age reads no deliveries or fan-out marks', async () => {
  const {service, trips, from} = await retentionOnWire(100, 3)
  expect(await service.retention.prune()).toMatchObject({events: 0, deliveries: 0, more: false})
  const sent = trips.slice(from).flatMap((trip) => trip.sql.map(executed))
  // the oldest event's age ends the pass: what its deliveries would have said does not matter
  expect(sent.some((sql) => /events/.test(sql))).toBe(true)
  expect(sent.filter((sql) => /deliveries|fan_outs/.test(sql))).toEqual([])
})
