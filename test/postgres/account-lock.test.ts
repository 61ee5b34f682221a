import pg from 'pg'
import {afterEach, expect, it} from 'vitest'
import {POOL_SIZE} from '../../src/postgres/pool.js'
import type {RunningServer} from '../../src/server/start.js'
import {checkWith} from '../helpers/checks.js'
import {createTestDatabase} from '../helpers/postgres.js'
import {call, startServerOn} from '../helpers/simulator.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

/** A server on a database of its own, a session that holds rows (`client`) and one that watches (`watcher`). */
async function setup(): Promise<{server: RunningServer; client: pg.Client; watcher: pg.Client; url: string}> {
  const db = await createTestDatabase()
  const server = await startServerOn(db.url)
  const [client, watcher] = [new pg.Client({connectionString: db.url}), new pg.Client({connectionString: db.url})]
  await Promise.all([client.connect(), watcher.connect()])
  cleanup.push(
    () => db.drop(),
    () => server.close(),
    () => client.end(),
    () => watcher.end(),
  )
  return {server, client, watcher, url: db.url}
}

/**
 * Resolves once `sessions` sessions on `client`'s database wait for a lock, or `done` settled first. A session in
 * a transaction sees the activity as it was at its first look, so `client` is not one that holds a lock.
 */
async function untilWaiting(client: pg.Client, sessions: number, done: Promise<unknown>): Promise<void> {
  let settled = false
  void done.finally(() => (settled = true))
  for (const deadline = Date.now() + 10_000; !settled;) {
    if ((await waitingNow(client)) >= sessions) return
    if (Date.now() > deadline) throw new Error(`fewer than ${sessions} sessions ever waited for a lock`)
  }
}

/** How many sessions on `client`'s database wait for a lock now. */
async function waitingNow(client: pg.Client): Promise<number> {
  const waiting =
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
  return (await client.query<{n: number}>(waiting)).rows[0]!.n
}

it('a push during a reset comes wholly before it or after it: never a check without its events', async () => {
  const {server, client, watcher} = await setup()
  const push = (id: string) => call(server.url, 'PUT', `/v1/checks/external/${id}`, {body: checkWith([['a', 1, 100]])})
  const before = await push('before')
  const feedback = await call(server.url, 'POST', `/v1/sim/checks/${before.body.id}/feedback`, {body: {rating: 5}})
  expect(feedback.status).toBe(201)
  // another session holds the feedback's row: the reset waits there, past the checks, before the events
  await client.query('BEGIN')
  await client.query('SELECT 1 FROM feedback FOR UPDATE')
  const reset = call(server.url, 'POST', '/v1/sim/reset')
  await untilWaiting(watcher, 1, reset)
  const during = push('during')
  // the push waits for the reset, or (what must not be) commits while the reset is half done
  await untilWaiting(watcher, 2, during)
  await client.query('COMMIT')
  expect([(await reset).status, (await during).status]).toEqual([200, 201])

  const {body: checks} = await call(server.url, 'GET', '/v1/checks')
  const {body: events} = await call(server.url, 'GET', '/v1/events?type=check.created')
  expect(checks.data.map((check: {external_id: string}) => check.external_id)).toEqual(['during'])
  expect(events.data.map((event: {data: {external_id: string}}) => event.data.external_id)).toEqual(['during'])
})

it('a snapshot or a fault added during a scratch account deletion is refused, and leaves no row behind', async () => {
  const {server, client, watcher} = await setup()
  const parent = (await call(server.url, 'POST', '/v1/sim/accounts')).body
  const key = parent.api_keys[0].key
  const child = (await call(server.url, 'POST', '/v1/sim/accounts', {key})).body
  // another session holds the child's keys: the deletion waits there, the parent's records already deleted
  await client.query('BEGIN')
  await client.query('SELECT 1 FROM api_keys WHERE account_id = $1 FOR UPDATE', [child.id])
  const deletion = call(server.url, 'DELETE', `/v1/sim/accounts/${parent.id}`)
  await untilWaiting(watcher, 1, deletion)
  const late = Promise.all([
    call(server.url, 'POST', '/v1/sim/snapshots', {key, body: {name: 'late'}}),
    call(server.url, 'POST', '/v1/sim/faults', {key, body: {status: 500}}),
  ])
  // both wait for the deletion, or (what must not be) write into an account half deleted
  await untilWaiting(watcher, 3, late)
  await client.query('COMMIT')
  expect((await deletion).status).toBe(200)
  expect((await late).map((answer) => answer.status)).toEqual([401, 401])

  const left = await client.query(
    'SELECT (SELECT count(*) FROM snapshots WHERE account_id = ANY($1))::int AS snapshots, ' +
      '(SELECT count(*) FROM faults WHERE account_id = ANY($1))::int AS faults',
    [[parent.id, child.id]],
  )
  expect(left.rows).toEqual([{snapshots: 0, faults: 0}])
})

it('a restore never takes a record another account made while it ran: it is refused, and the other keeps it', async () => {
  const {server, client, watcher, url} = await setup()
  const second = await startServerOn(url)
  cleanup.push(() => second.close())
  const other = (await call(server.url, 'POST', '/v1/sim/accounts')).body
  const key = other.api_keys[0].key
  const check = (await call(server.url, 'PUT', '/v1/checks/external/shared', {body: checkWith([['a', 1, 100]])})).body
  expect((await call(server.url, 'POST', '/v1/sim/snapshots', {body: {name: 'mine'}})).status).toBe(201)
  const {body: mine} = await call(server.url, 'GET', '/v1/sim/snapshots/mine/export')
  expect((await call(server.url, 'POST', '/v1/sim/reset')).status).toBe(200)
  // the other account's snapshot holds the same check (an export keeps its ids), at its own location
  expect((await call(server.url, 'POST', '/v1/sim/snapshots', {key, body: {name: 'theirs'}})).status).toBe(201)
  const {body: theirs} = await call(server.url, 'GET', '/v1/sim/snapshots/theirs/export', {key})
  const location = theirs.records.locations[0].id
  theirs.records.checks = [{...mine.records.checks[0], location_id: location}]
  expect((await call(server.url, 'POST', '/v1/sim/snapshots/import', {key, body: theirs})).status).toBe(201)

  // another session holds this account's locations: the restore waits there, having found the check's id free
  await client.query('BEGIN')
  await client.query('SELECT 1 FROM locations WHERE account_id = $1 FOR UPDATE', ['acct_demo'])
  const restore = call(server.url, 'POST', '/v1/sim/snapshots/mine/restore')
  await untilWaiting(watcher, 1, restore)
  // through another instance: restores through one take turns
  expect((await call(second.url, 'POST', '/v1/sim/snapshots/theirs/restore', {key})).status).toBe(200)
  await client.query('COMMIT')

  // the restore finds the id taken when it writes (not writing over the other account's check)
  const refused = await restore
  expect(refused.status).toBe(422)
  expect(refused.body.error.message).toContain(check.id)
  expect((await call(server.url, 'GET', `/v1/checks/${check.id}`, {key})).body).toMatchObject({location_id: location})
  expect((await call(server.url, 'GET', `/v1/checks/${check.id}`)).status).toBe(404)
})

it("an endpoint's creation waits for a restore of its account: it never counts endpoints the restore is replacing", async () => {
  const {server, client, watcher} = await setup()
  // another session holds the account's lock as a restore does (src/postgres/unit.ts, accountLock)
  await client.query('BEGIN')
  await client.query("SELECT pg_advisory_xact_lock(hashtextextended('account-records:acct_demo', 0))")
  const body = {url: 'http://127.0.0.1:9/hooks', event_types: ['check.created']}
  const creations = Promise.all([
    call(server.url, 'POST', '/v1/webhook-endpoints', {body}),
    call(server.url, 'POST', '/v1/sim/webhook-endpoints', {
      body: {...body, secret: 'whsec_waits_for_the_restore_0001'},
    }),
  ])
  await untilWaiting(watcher, 2, creations)
  // both wait, or (what must not be) were counted and written while the restore held the account
  expect(await waitingNow(watcher)).toBe(2)
  await client.query('COMMIT')
  expect((await creations).map(({status}) => status)).toEqual([201, 201])
})

it('scratch creations waiting for their turn hold one pool connection between them: other requests go on', async () => {
  const {server, client, watcher} = await setup()
  // another session holds the creations' turn (SCRATCH_TURN, src/service/accounts.ts): each waits for it
  await client.query('BEGIN')
  await client.query("SELECT pg_advisory_xact_lock(hashtextextended('accounts:scratch accounts', 0))")
  const creations = Promise.all(Array.from({length: POOL_SIZE + 2}, () => call(server.url, 'POST', '/v1/sim/accounts')))
  await untilWaiting(watcher, 1, creations)
  // a read takes a pool connection: with every one waiting for the turn, it would wait for a lock_timeout
  expect((await call(server.url, 'GET', '/v1/checks')).status).toBe(200)
  expect(await waitingNow(watcher)).toBe(1)
  await client.query('COMMIT')
  expect((await creations).map(({status}) => status)).toEqual(Array(POOL_SIZE + 2).fill(201))
})

it(
  'a push whose check another session holds locked through its lock waits is answered 503, and changes nothing',
  {timeout: 60_000},
  async () => {
    const {server, client} = await setup()
    const push = (version: number) =>
      call(server.url, 'PUT', '/v1/checks/external/held', {body: checkWith([['a', version, 100]], {version})})
    expect((await push(1)).status).toBe(201)
    // a transaction left open, as an instance paused mid-request or a session of the user's own leaves it
    await client.query('BEGIN')
    await client.query("SELECT 1 FROM checks WHERE external_id = 'held' FOR UPDATE")
    const refused = await push(2)
    expect([refused.status, refused.body.error.code]).toEqual([503, 'storage_unavailable'])
    expect(refused.body.error.message).toMatch(/stayed locked by another session of the database for 20 s \(55P03\)/)
    await client.query('COMMIT')
    const {body: check} = await call(server.url, 'GET', '/v1/checks/external/held')
    expect(check.version).toBe(1)
    expect((await push(2)).status).toBe(200)
  },
)

it(
  'a fault added while another session holds its account locked through the lock waits is answered 503, and adds nothing',
  {timeout: 60_000},
  async () => {
    const {server, client} = await setup()
    const add = () => call(server.url, 'POST', '/v1/sim/faults', {body: {match: {path: '/v1/locations'}, status: 500}})
    // a transaction left open on the account, as an instance paused mid-unit or a session of the user's own leaves it
    await client.query('BEGIN')
    await client.query('SELECT 1 FROM accounts FOR UPDATE')
    const refused = await add()
    expect([refused.status, refused.body.error.code]).toEqual([503, 'storage_unavailable'])
    expect(refused.body.error.message).toMatch(/stayed locked by another session of the database for 20 s \(55P03\)/)
    await client.query('COMMIT')
    expect((await call(server.url, 'GET', '/v1/sim/faults')).body.data).toEqual([])
    expect((await add()).status).toBe(201)
  },
)
