import pg from 'pg'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import type {DeliveryRecord} from '../../src/domain/records.js'
import {claimDeliveries, lifeLockHeld, TAKE_ALIVE} from '../../src/postgres/leases.js'
import {named} from '../../src/postgres/prepared.js'
import type {Sql} from '../../src/postgres/reader.js'
import {scopeOf} from '../../src/postgres/scope.js'
import {PgStorage} from '../../src/postgres/storage.js'
import {createTestDatabase, type TestDatabase} from '../helpers/postgres.js'
import {databaseBehindRelay} from '../helpers/relay.js'

let db: TestDatabase
const opened: PgStorage[] = []
/** Sessions of instances that `sessionOf` stands in for. */
const sessions: pg.Client[] = []
/** The first key of the life locks of instances on `public`, the test databases' schema. */
const {lifeLock: LIFE_LOCK} = scopeOf('public')

async function open(): Promise<PgStorage> {
  const storage = await PgStorage.open({url: db.url})
  opened.push(storage)
  return storage
}

beforeEach(async () => {
  db = await createTestDatabase()
})

afterEach(async () => {
  await Promise.all(opened.splice(0).map((storage) => storage.close()))
  await Promise.all(sessions.splice(0).map((session) => session.end()))
  await db.drop()
})

const DUE = Date.parse('2026-01-01T00:00:00.000Z')
const LATER = DUE + 60_000

const delivery = (next: number | null, status = 'pending', attempts = 0) =>
  ({
    id: 'dlv_1',
    object: 'delivery',
    account_id: 'acct_a',
    endpoint_id: 'we_1',
    event_id: 'evt_1',
    event_type: 'check.created',
    status,
    attempts: Array.from({length: attempts}, (_, i) => ({attempt: i + 1, status_code: 500})),
    next_attempt_at: next === null ? null : new Date(next).toISOString(),
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
  }) as unknown as DeliveryRecord

async function write(storage: PgStorage, record: DeliveryRecord): Promise<void> {
  await storage.unit(async (tx) => tx.put('deliveries', record.id, record))
}

/** A session holding the locks of instance `owner`'s life, as its own does (instance.ts), ended after the test. */
async function sessionOf(owner: number): Promise<void> {
  const session = new pg.Client({connectionString: db.url})
  await session.connect()
  sessions.push(session)
  await session.query('SELECT pg_advisory_lock($1, $2)', [LIFE_LOCK, owner])
  await session.query(TAKE_ALIVE, [LIFE_LOCK, owner])
}

/** Claims until `want` comes, or throws after `ms`: what another instance's lease or session lets happen. */
async function claimUntil(storage: PgStorage, want: (claim: unknown) => boolean, ms = 10_000) {
  const deadline = Date.now() + ms
  for (;;) {
    const claim = await storage.shared!.claim('dlv_1', DUE, 60_000)
    if (want(claim)) return claim
    if (Date.now() > deadline) throw new Error(`no such claim within ${ms} ms: last ${JSON.stringify(claim)}`)
    await new Promise((resolve) => setImmediate(resolve))
  }
}

describe('delivery leases', () => {
  it('of two instances claiming one attempt at once, exactly one gets it; the other finds it held', async () => {
    const [a, b] = await Promise.all([open(), open()])
    await write(a, delivery(DUE))
    for (let round = 0; round < 20; round++) {
      const instances = [a, b, a, b]
      const claims = await Promise.all(instances.map((storage) => storage.shared!.claim('dlv_1', DUE, 60_000)))
      // an instance may claim again what it holds already (its own lease): the winners are one instance
      const winners = new Set(instances.filter((_, i) => typeof claims[i] === 'object'))
      expect(winners.size).toBe(1)
      expect(claims.filter((claim) => claim === 'held').length).toBeGreaterThanOrEqual(1)
      // recording its attempt ends the lease: the next round starts free
      await write(a, delivery(DUE, 'pending', round + 1))
    }
  })

  it('the lease is not in the record: the delivery reads back byte for byte as written', async () => {
    const a = await open()
    const record = delivery(DUE)
    await write(a, record)
    const claim = await a.shared!.claim('dlv_1', DUE, 60_000)
    expect(typeof claim === 'object' && JSON.stringify(claim.delivery)).toBe(JSON.stringify(record))
    expect(JSON.stringify(await a.get('deliveries', 'dlv_1'))).toBe(JSON.stringify(record))
  })

  it('recording the attempt ends the lease: the old due time is claimed by nobody, the next one by anyone', async () => {
    const [a, b] = await Promise.all([open(), open()])
    await write(a, delivery(DUE))
    expect(await a.shared!.claim('dlv_1', DUE, 60_000)).toMatchObject({delivery: {id: 'dlv_1'}})
    expect(await b.shared!.claim('dlv_1', DUE, 60_000)).toBe('held')
    await write(a, delivery(LATER, 'pending', 1))
    expect(await b.shared!.claim('dlv_1', DUE, 60_000)).toBeUndefined()
    expect(await b.shared!.claim('dlv_1', LATER, 60_000)).toMatchObject({
      delivery: {next_attempt_at: new Date(LATER).toISOString()},
    })
    await write(b, delivery(null, 'succeeded'))
    expect(await a.shared!.claim('dlv_1', LATER, 60_000)).toBeUndefined()
  })

  it("a retry's write leaves the lease of the attempt out, after a supersede or a cancel too; that attempt's record ends it", async () => {
    const [a, b] = await Promise.all([open(), open()])
    for (const ended of [undefined, 'superseded', 'canceled']) {
      // a new delivery's first attempt, out on a
      await write(a, delivery(DUE))
      expect(await a.shared!.claim('dlv_1', DUE, 60_000)).toMatchObject({delivery: {id: 'dlv_1'}})
      if (ended) await write(b, delivery(null, ended))
      // the retry: pending again, due at once, its attempt still out
      await write(b, delivery(LATER))
      expect(await b.shared!.claim('dlv_1', LATER, 60_000)).toBe('held')
      await write(a, delivery(LATER, 'pending', 1))
      expect(await b.shared!.claim('dlv_1', LATER, 60_000)).toMatchObject({delivery: {attempts: [{attempt: 1}]}})
    }
  })

  it('an instance whose session ends loses its leases at once: another claims the attempt it held', async () => {
    const [a, b] = await Promise.all([open(), open()])
    await write(a, delivery(DUE))
    expect(await a.shared!.claim('dlv_1', DUE, 3_600_000)).toMatchObject({delivery: {id: 'dlv_1'}})
    expect(await b.shared!.claim('dlv_1', DUE, 3_600_000)).toBe('held')
    await a.close()
    expect(await claimUntil(b, (claim) => typeof claim === 'object')).toMatchObject({delivery: {id: 'dlv_1'}})
  })

  /**
   * Runs `test` with two instances, `a` behind a relay: `session.lose()` ends a's session, as in a restart of
   * the database, and keeps it from coming back, while its pool's connections go on; `session.back()` lets it.
   */
  async function withSessionOfA(
    test: (a: PgStorage, b: PgStorage, session: {lose(): Promise<void>; back(): Promise<void>}) => Promise<void>,
  ) {
    const {link, url} = await databaseBehindRelay(undefined, db)
    const admin = new pg.Client({connectionString: db.url})
    try {
      const a = await PgStorage.open({url, connectTimeoutMs: 500})
      opened.push(a)
      const b = await open()
      await admin.connect()
      const lifeLock = lifeLockHeld('$1', '$2')
      const keys = [LIFE_LOCK, a.shared!.owner]
      const held = async () => (await admin.query(`SELECT pid FROM pg_locks WHERE ${lifeLock}`, keys)).rows.length
      await test(a, b, {
        async lose() {
          link.silence()
          await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_locks WHERE ${lifeLock}`, keys)
          await expect.poll(held).toBe(0)
        },
        async back() {
          link.speak()
          await expect.poll(held, {timeout: 10_000}).toBe(1)
        },
      })
    } finally {
      await admin.end()
      await Promise.all(opened.splice(0).map((storage) => storage.close()))
      await link.cut()
    }
  }

  it('an instance whose session is lost claims its own lease again only once its life lock is back; another may take it meanwhile', () =>
    withSessionOfA(async (a, b, session) => {
      await write(a, delivery(DUE))
      const claim = () => a.shared!.claim('dlv_1', DUE, 60_000)
      expect(await claim()).toMatchObject({delivery: {id: 'dlv_1'}})
      await session.lose()
      // its attempt may be another's now: made here again too, it would be sent a third time (docs/postgres.md)
      expect(await claim()).toBe('held')
      expect(await claimUntil(b, (claim) => typeof claim === 'object')).toMatchObject({delivery: {id: 'dlv_1'}})
      await session.back()
      expect(await claim()).toBe('held')
    }))

  it('an instance whose session is lost claims no free delivery either: it finds it held, and another claims it alone', () =>
    withSessionOfA(async (a, b, session) => {
      await write(a, delivery(DUE))
      await session.lose()
      // a lease in the name of an instance without its life lock reads to the others as free: both would send
      expect(await a.shared!.claim('dlv_1', DUE, 60_000)).toBe('held')
      expect(await b.shared!.claim('dlv_1', DUE, 60_000)).toMatchObject({delivery: {id: 'dlv_1'}})
      await session.back()
      expect(await a.shared!.claim('dlv_1', DUE, 60_000)).toBe('held')
      // with its session back, it claims again
      await write(a, {...delivery(DUE), id: 'dlv_2'})
      const claim = () => a.shared!.claim('dlv_2', DUE, 60_000)
      await expect.poll(claim, {timeout: 10_000}).toMatchObject({delivery: {id: 'dlv_2'}})
    }))

  it('a delivery asked twice in one batch of claims gets both answers: its own lease lets it claim again', async () => {
    const a = await open()
    await write(a, delivery(DUE))
    const claims = await Promise.all([1, 2].map(() => a.shared!.claim('dlv_1', DUE, 60_000)))
    expect(claims).toEqual([
      expect.objectContaining({delivery: expect.objectContaining({id: 'dlv_1'})}),
      expect.objectContaining({delivery: expect.objectContaining({id: 'dlv_1'})}),
    ])
  })

  it('a lease that ran out is free while its owner lives; one that has not is not', async () => {
    const [a, b] = await Promise.all([open(), open()])
    await write(a, delivery(DUE))
    expect(await a.shared!.claim('dlv_1', DUE, 50)).toMatchObject({delivery: {id: 'dlv_1'}})
    expect(await claimUntil(b, (claim) => claim !== 'held')).toMatchObject({delivery: {id: 'dlv_1'}})
    // b's own lease is an hour: a, alive, cannot take it
    expect(await a.shared!.claim('dlv_1', DUE, 3_600_000)).toBe('held')
  })

  it('a row another transaction holds is held, not waited for: the others asked with it are won, and it is once let go', async () => {
    const a = await open()
    await write(a, delivery(DUE))
    await write(a, {...delivery(DUE), id: 'dlv_2'})
    // a transaction left open on a delivery, as by an instance paused mid-unit: no claim of the instance may wait
    // for it, since its claims go one batch at a time
    const other = new pg.Client({connectionString: db.url})
    await other.connect()
    try {
      await other.query('BEGIN')
      await other.query("SELECT 1 FROM deliveries WHERE id = 'dlv_2' FOR UPDATE")
      const claims = await Promise.all(['dlv_1', 'dlv_2'].map((id) => a.shared!.claim(id, DUE, 60_000)))
      expect(claims).toEqual([expect.objectContaining({delivery: expect.objectContaining({id: 'dlv_1'})}), 'held'])
      await other.query('ROLLBACK')
      expect(await a.shared!.claim('dlv_2', DUE, 60_000)).toMatchObject({delivery: {id: 'dlv_2'}})
    } finally {
      await other.end()
    }
  })

  // a few thousand deliveries: a PostgreSQL that counted them planned a claim as a read of every one, which took it
  // 42 ms for a claim of 7 at 4,000; 20,000, a quarter pending: a backlog, whose partial index it could read whole
  it.each([
    ['a sandbox of a few thousand deliveries', 3000],
    ['a backlog of pending deliveries', 20_000],
  ])('a claim finds each delivery asked by its id, in %s', async (_table, stored) => {
    await open()
    const client = new pg.Client({connectionString: db.url})
    await client.connect()
    try {
      // all done when the planner last counted them; then a quarter of them pending
      const record = (status: string) =>
        `json_build_object('id', 'dlv_' || i, 'status', '${status}', 'next_attempt_at', '${new Date(DUE).toISOString()}')`
      await client.query(
        `INSERT INTO deliveries (id, account_id, doc, event_id, endpoint_id, status)
         SELECT 'dlv_' || i, 'acct_a', ${record('succeeded')}, 'evt_' || i, 'we_1', 'succeeded'
         FROM generate_series(1, $1::integer) i`,
        [stored],
      )
      await client.query('ANALYZE deliveries')
      await client.query(
        `UPDATE deliveries SET status = 'pending', doc = ${record('pending')}
         FROM generate_series(4, $1::integer, 4) i WHERE id = 'dlv_' || i`,
        [stored],
      )
      const plans: string[] = []
      const sql: Sql = {
        async query(text, values) {
          // the plan made for these values, and the one made for any values, which a named statement may keep
          for (const mode of ['force_custom_plan', 'force_generic_plan']) {
            await client.query(`SET plan_cache_mode = ${mode}`)
            const {rows} = await client.query(`EXPLAIN (FORMAT JSON) ${text}`, values)
            plans.push(JSON.stringify(rows[0]))
          }
          await client.query('RESET plan_cache_mode')
          return client.query(text, values)
        },
      }
      await sessionOf(1)
      // dlv_8 and dlv_12 pending, dlv_5 done: the claim, then the look at which of those lost are held
      const asked = ['dlv_8', 'dlv_5', 'dlv_12'].map((id) => ({id, dueAt: DUE, leaseMs: 60_000}))
      const claims = await claimDeliveries(sql, asked, 1, LIFE_LOCK)
      expect(claims.map((claim) => (typeof claim === 'object' ? claim.delivery.id : claim))).toEqual([
        'dlv_8',
        undefined,
        'dlv_12',
      ])
      expect(plans).toHaveLength(4)
      for (const plan of plans) {
        expect(plan).toContain('deliveries_pkey')
        expect(plan).not.toContain('deliveries_pending')
      }
    } finally {
      await client.end()
    }
  })

  it('claims a delivery whose id holds a backslash, as an imported one may, with the others asked', async () => {
    const a = await open()
    const ids = ['dlv_1', 'dlv_back\\slash', 'dlv_\\0']
    for (const id of ids) await write(a, {...delivery(DUE), id})
    const claims = await Promise.all(ids.map((id) => a.shared!.claim(id, DUE, 60_000)))
    expect(claims.map((claim) => (typeof claim === 'object' ? claim.delivery.id : claim))).toEqual(ids)
    // claimed: another instance finds each held
    const b = await open()
    expect(await Promise.all(ids.map((id) => b.shared!.claim(id, DUE, 60_000)))).toEqual(['held', 'held', 'held'])
  })

  it('claims a delivery due finer than the millisecond, as an older build imported one, at the millisecond the scheduler reads', async () => {
    const a = await open()
    await write(a, {...delivery(DUE), next_attempt_at: '2026-01-01T00:00:00.000999Z'})
    const claim = await a.shared!.claim('dlv_1', DUE, 60_000)
    expect(typeof claim === 'object' && claim.delivery.id).toBe('dlv_1')
    const b = await open()
    expect(await b.shared!.claim('dlv_1', DUE, 60_000)).toBe('held')
  })

  it('a claim leaves its delivery on its page, where room is kept for it: no index of the table is written', async () => {
    const a = await open()
    // in one unit: its pages are filled as far as the table fills one
    await a.unit(async (tx) => {
      for (let i = 0; i < 60; i++) await tx.put('deliveries', `dlv_${i}`, {...delivery(DUE), id: `dlv_${i}`})
    })
    const client = new pg.Client({connectionString: db.url})
    await client.connect()
    try {
      await sessionOf(1)
      // a delivery of the page holding the most of them: one the unit filled
      const {rows: first} = await client.query<{id: string}>(
        `SELECT id FROM deliveries WHERE (ctid::text::point)[0] = (SELECT (ctid::text::point)[0] AS page
          FROM deliveries GROUP BY page ORDER BY count(*) DESC LIMIT 1) LIMIT 1`,
      )
      await client.query('BEGIN')
      const sql: Sql = {query: (text, values) => client.query(named(text, values))}
      const [claim] = await claimDeliveries(sql, [{id: first[0]!.id, dueAt: DUE, leaseMs: 60_000}], 1, LIFE_LOCK)
      expect(typeof claim === 'object' && claim.delivery.id).toBe(first[0]!.id)
      // this transaction's own counts: a heap-only update writes no index entry
      const {rows} = await client.query(
        "SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_xact_user_tables WHERE relname = 'deliveries'",
      )
      expect(rows).toEqual([{n_tup_upd: '1', n_tup_hot_upd: '1'}])
    } finally {
      await client.end()
    }
  })

  it('a connection plans the claim once: whatever the number asked, its later calls run the plan made for any', async () => {
    const a = await open()
    for (const id of ['dlv_1', 'dlv_2', 'dlv_3']) await write(a, {...delivery(DUE), id})
    const client = new pg.Client({connectionString: db.url})
    await client.connect()
    try {
      // a named statement, as the storage sends the claim, by the instance 1, whose session is here
      await sessionOf(1)
      const sql: Sql = {query: (text, values) => client.query(named(text, values))}
      for (let call = 0; call < 12; call++) {
        const asked = ['dlv_1', 'dlv_2', 'dlv_3'].slice(0, 1 + (call % 3))
        await claimDeliveries(
          sql,
          asked.map((id) => ({id, dueAt: DUE, leaseMs: 60_000})),
          1,
          LIFE_LOCK,
        )
      }
      const {rows} = await client.query<{generic_plans: string; custom_plans: string}>(
        "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE 'UPDATE deliveries%'",
      )
      // PostgreSQL plans a named statement's first five calls for their values, then keeps a plan for any
      // values if it costs no more: planning each claim anew took it about as long as running it (docs/postgres.md)
      expect(rows).toHaveLength(1)
      expect(Number(rows[0]!.custom_plans)).toBeLessThanOrEqual(5)
      expect(Number(rows[0]!.generic_plans)).toBeGreaterThanOrEqual(7)
    } finally {
      await client.end()
    }
  })
})
