import pg from 'pg'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import type {Change} from '../../src/service/storage.js'
import {migrate} from '../../src/postgres/migrations.js'
import {MIGRATIONS} from '../../src/postgres/schema.js'
import {PgStorage, type PgStorageOptions} from '../../src/postgres/storage.js'
import {storageUnavailable} from '../../src/server/internal/errors.js'
import {literal} from '../../src/postgres/literal.js'
import {snapshotRecord, STORED_COLLECTIONS} from '../../src/domain/snapshots.js'
import {createTestDatabase, testPool, type TestDatabase, untilLockWaited} from '../helpers/postgres.js'
import {snapshotHead, snapshotOf, withoutRecords} from '../helpers/snapshots.js'
import {databaseBehindRelay, holdOne} from '../helpers/relay.js'

let db: TestDatabase
const opened: PgStorage[] = []

async function open(options: Partial<PgStorageOptions> = {}): Promise<PgStorage> {
  const storage = await PgStorage.open({url: db.url, ...options})
  opened.push(storage)
  return storage
}

async function query<R extends pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({connectionString: db.url})
  await client.connect()
  try {
    return (await client.query<R>(sql, values)).rows
  } finally {
    await client.end()
  }
}

const event = (id: string, account = 'acct_a') =>
  ({id, account_id: account, object: 'event', type: 'check.created', created_at: '2026-01-01T00:00:00.000Z'}) as never

beforeEach(async () => {
  db = await createTestDatabase({empty: true})
})

afterEach(async () => {
  await Promise.all(opened.splice(0).map((storage) => storage.close()))
  await db.drop()
})

describe('PgStorage', () => {
  it('fails a read after its close as a database out of reach: what runs on after a stop is answered 503', async () => {
    const storage = await PgStorage.open({url: db.url})
    await storage.close()
    await expect(storage.get('settings', 'clock')).rejects.toMatchObject({name: 'DatabaseUnavailable'})
    // the failure the server answers every request with (src/server/app.ts), not a 500 for the error itself
    expect(storage.failure).toMatchObject({name: 'DatabaseUnavailable'})
    // which says the server stops, not that it tries again every second
    expect(storageUnavailable(storage.failure!)).toMatchObject({
      code: 'storage_unavailable',
      message: expect.stringMatching(/^tablepay is stopping and cannot use its database any more/),
    })
  })

  it('gives back a record byte for byte: its keys in their order, as the memory store does (json, not jsonb)', async () => {
    const storage = await open()
    // jsonb would give these back sorted by key length and name
    const record = {zeta: 1, id: 'chk_1', account_id: 'acct_a', alpha: {b: 2, a: [1, 'é', null]}, mid: 'x'}
    await storage.unit(async (tx) => tx.put('checks', 'chk_1', record as never))
    expect(JSON.stringify(await storage.get('checks', 'chk_1'))).toBe(JSON.stringify(record))
    const [column] = await query<{type: string}>(
      `SELECT data_type AS type FROM information_schema.columns WHERE table_name = 'checks' AND column_name = 'doc'`,
    )
    expect(column!.type).toBe('json')
  })

  it('keeps an id holding NUL or a backslash (an idempotency key) apart from one that does not', async () => {
    const storage = await open()
    const ids = ['acct_a\u0000api\u0000k1', 'acct_a\\0api\\0k1', 'acct_a\\\u0000k']
    await storage.unit(async (tx) => {
      for (const id of ids) tx.put('idempotency_keys', id, {id, account_id: 'acct_a', key: id} as never)
    })
    for (const id of ids) expect((await storage.get('idempotency_keys', id))?.id).toBe(id)
    const deleted = await storage.unit(async (tx) => tx.deleteAll('idempotency_keys', 'acct_a'))
    expect(deleted).toBe(3)
    expect(await storage.count('idempotency_keys', 'acct_a')).toBe(0)
  })

  it('says whether a record is stored by its id, and in a unit locks it as get does until the unit ends', async () => {
    const storage = await open()
    await storage.unit(async (tx) => tx.put('checks', 'chk_1', {id: 'chk_1', account_id: 'acct_a'} as never))
    expect([await storage.has('checks', 'chk_1'), await storage.has('checks', 'chk_2')]).toEqual([true, false])
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    let locked!: () => void
    const holding = new Promise<void>((resolve) => (locked = resolve))
    const order: string[] = []
    const first = storage.unit(async (tx) => {
      expect(await tx.has('checks', 'chk_1')).toBe(true)
      locked()
      await held
      order.push('first ends')
    })
    await holding
    const second = storage.unit(async (tx) => tx.delete('checks', 'chk_1')).then(() => order.push('deleted'))
    const watcher = new pg.Client({connectionString: db.url})
    await watcher.connect()
    try {
      await untilLockWaited(watcher, 'the delete')
    } finally {
      await watcher.end()
    }
    release()
    await Promise.all([first, second])
    expect(order).toEqual(['first ends', 'deleted'])
    expect(await storage.has('checks', 'chk_1')).toBe(false)
  })

  it('writes text into SQL as pg.escapeLiteral does, and reads it back as it was', async () => {
    const texts = ['plain', "it's", 'back\\slash', "both ' and \\ and ''", 'é \u{1f600}', '', "\\'"]
    const client = new pg.Client({connectionString: db.url})
    await client.connect()
    try {
      for (const value of texts) {
        expect(literal(value)).toBe(pg.escapeLiteral(value))
        expect((await client.query(`SELECT ${literal(value)} AS v`)).rows[0].v).toBe(value)
      }
    } finally {
      await client.end()
    }
  })

  it('listens on one connection per instance, for changes and notes alike', async () => {
    await open()
    const listening = await query<{n: number}>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'`,
    )
    expect(listening).toEqual([{n: 1}])
  })

  it("names its sessions tablepay in pg_stat_activity, unless the URL's application_name names them", async () => {
    const named = new URL(db.url)
    named.searchParams.set('application_name', 'team-a')
    // each with its pool's sessions, its listening connection and its own
    await Promise.all([open(), open({url: named.toString()})])
    const names = await query<{name: string}>(
      `SELECT DISTINCT application_name AS name FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() ORDER BY name`,
    )
    expect(names).toEqual([{name: 'tablepay'}, {name: 'team-a'}])
  })

  it('opens at most 8 connections however many units are asked at once, as docs/postgres.md sizes max_connections', async () => {
    await (await open()).close()
    // a role's CONNECTION LIMIT binds its sessions (a superuser's would not): a ninth connection is refused
    const role = `tp_limited_${process.pid}`
    await query(`CREATE ROLE ${role} LOGIN CONNECTION LIMIT 8`)
    try {
      await query(
        `GRANT ALL ON SCHEMA public TO ${role}; GRANT ALL ON ALL TABLES IN SCHEMA public TO ${role}; GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO ${role}`,
      )
      const url = new URL(db.url)
      url.username = role
      const storage = await open({url: url.toString()})
      // asked at once, they make the pool open every connection it may
      const ids = Array.from({length: 20}, (_, i) => `evt_${i}`)
      await Promise.all(ids.map((id) => storage.unit(async (tx) => tx.put('events', id, event(id)))))
      expect(await storage.count('events', 'acct_a')).toBe(20)
      const [sessions] = await query<{n: number}>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE usename = '${role}'`,
      )
      // its pool of 6, its listening connection and its session
      expect(sessions).toEqual({n: 8})
    } finally {
      await Promise.all(opened.splice(0).map((storage) => storage.close()))
      await query(`DROP OWNED BY ${role}; DROP ROLE ${role}`)
    }
  })

  it('writes nothing of a unit that throws, and a unit does not see its own writes', async () => {
    const storage = await open()
    await expect(
      storage.unit(async (tx) => {
        tx.put('events', 'evt_1', event('evt_1'))
        expect(await tx.get('events', 'evt_1')).toBeUndefined()
        throw new Error('refused')
      }),
    ).rejects.toThrow('refused')
    expect(await storage.get('events', 'evt_1')).toBeUndefined()
  })

  it('a unit waits for a busy pool past the connect timeout: a database slow to free a connection is not unreachable', async () => {
    // long enough for the open's own connections on a busy machine
    const storage = await open({poolSize: 1, connectTimeoutMs: 300})
    let free!: () => void
    const busy = storage.unit(async (tx) => {
      await tx.get('events', 'evt_0')
      await new Promise<void>((resolve) => (free = resolve))
      tx.put('events', 'evt_1', event('evt_1'))
    })
    const waiting = storage.unit(async (tx) => tx.put('events', 'evt_2', event('evt_2')))
    // the pool's one connection stays busy for three connect timeouts
    await new Promise((resolve) => setTimeout(resolve, 900))
    free()
    await Promise.all([busy, waiting])
    expect(storage.failure).toBeUndefined()
    expect(await storage.count('events', 'acct_a')).toBe(2)
  })

  it('a listener of durable changes that throws fails its unit after the commit, and the next unit runs', async () => {
    const storage = await open()
    const failing = () => {
      throw new Error('listener failed')
    }
    await expect(storage.unit(async (tx) => tx.put('events', 'evt_1', event('evt_1')), failing)).rejects.toThrow(
      'listener failed',
    )
    expect(await storage.get('events', 'evt_1')).toBeDefined()
    await storage.unit(async (tx) => tx.put('events', 'evt_2', event('evt_2')))
    expect(await storage.count('events', 'acct_a')).toBe(2)
  })

  it('keeps the place of a record deleted, not of one a unit deletes and puts back, which moves to its new place', async () => {
    const storage = await open()
    await storage.unit(async (tx) => {
      for (let i = 1; i <= 3; i++) tx.put('events', `evt_${i}`, event(`evt_${i}`))
    })
    // a restore's unit: every record deleted, and all but one put back in another order
    await storage.unit(async (tx) => {
      await tx.deleteAll('events', 'acct_a')
      tx.put('events', 'evt_3', event('evt_3'))
      tx.put('events', 'evt_1', event('evt_1'))
    })
    expect((await storage.list('events', 'acct_a')).map((e) => e.id)).toEqual(['evt_3', 'evt_1'])
    expect(await query('SELECT id FROM deleted ORDER BY id')).toEqual([{id: 'evt_2'}])
    // a cursor naming the one put back pages on from its new place, one naming the deleted from its old
    expect(
      (await storage.page('events', 'acct_a', {limit: 5, startingAfter: 'evt_1'}))!.records.map((e) => e.id),
    ).toEqual(['evt_3'])
    expect(
      (await storage.page('events', 'acct_a', {limit: 5, startingAfter: 'evt_2'}))!.records.map((e) => e.id),
    ).toEqual([])
  })

  it('lists oldest first and pages newest first, on past a cursor whose record was deleted since', async () => {
    const storage = await open()
    await storage.unit(async (tx) => {
      for (let i = 1; i <= 5; i++) tx.put('events', `evt_${i}`, event(`evt_${i}`))
      tx.put('events', 'evt_other', event('evt_other', 'acct_b'))
    })
    expect((await storage.list('events', 'acct_a')).map((e) => e.id)).toEqual([
      'evt_1',
      'evt_2',
      'evt_3',
      'evt_4',
      'evt_5',
    ])
    const first = await storage.page('events', 'acct_a', {limit: 2})
    expect(first).toMatchObject({hasMore: true})
    expect(first!.records.map((e) => e.id)).toEqual(['evt_5', 'evt_4'])
    await storage.unit(async (tx) => tx.delete('events', 'evt_4'))
    const next = await storage.page('events', 'acct_a', {limit: 2, startingAfter: 'evt_4'})
    expect(next!.records.map((e) => e.id)).toEqual(['evt_3', 'evt_2'])
    const oldest = await storage.page('events', 'acct_a', {limit: 10, startingAfter: 'evt_4', oldestFirst: true})
    expect(oldest).toEqual({records: [await storage.get('events', 'evt_5')], hasMore: false})
    expect(await storage.page('events', 'acct_a', {limit: 2, startingAfter: 'evt_never'})).toBeUndefined()
  })

  it('remembers the places of the newest deleted ids only, trimmed in the background', async () => {
    const storage = await open({deletedKept: 2})
    await storage.unit(async (tx) => {
      for (let i = 1; i <= 6; i++) tx.put('events', `evt_${i}`, event(`evt_${i}`))
    })
    await storage.unit(async (tx) => {
      for (let i = 1; i <= 4; i++) tx.delete('events', `evt_${i}`)
    })
    await expect
      .poll(async () => (await query<{id: string}>('SELECT id FROM deleted ORDER BY seq')).map((row) => row.id))
      .toEqual(['evt_3', 'evt_4'])
    expect(
      (await storage.page('events', 'acct_a', {limit: 5, startingAfter: 'evt_4', oldestFirst: true}))!.records,
    ).toHaveLength(2)
    expect(await storage.page('events', 'acct_a', {limit: 5, startingAfter: 'evt_1'})).toBeUndefined()
  })

  it('filters lists on real columns and on fields of the record alike', async () => {
    const storage = await open()
    const delivery = (id: string, status: string, attempt: number) =>
      ({id, account_id: 'acct_a', event_id: 'evt_1', endpoint_id: 'we_1', status, attempt}) as never
    await storage.unit(async (tx) => {
      tx.put('deliveries', 'dl_1', delivery('dl_1', 'pending', 1))
      tx.put('deliveries', 'dl_2', delivery('dl_2', 'succeeded', 2))
      tx.put('deliveries', 'dl_3', delivery('dl_3', 'pending', 2))
    })
    const ids = (records: {id: string}[]) => records.map((r) => r.id)
    expect(ids(await storage.list('deliveries', 'acct_a', {status: 'pending'}))).toEqual(['dl_1', 'dl_3'])
    expect(ids(await storage.all('deliveries', {status: 'pending', attempt: 2} as never))).toEqual(['dl_3'])
    expect(ids((await storage.page('deliveries', 'acct_a', {limit: 1, where: {status: 'pending'}}))!.records)).toEqual([
      'dl_3',
    ])
  })

  it('migrates once however many instances start together, and refuses a schema newer than it knows', async () => {
    await Promise.all([open(), open(), open()])
    expect(await query('SELECT version FROM tablepay_schema')).toEqual([{version: MIGRATIONS.length}])
    const pool = testPool(db.url)
    try {
      expect(await migrate(pool)).toBe(0)
      await pool.query('UPDATE tablepay_schema SET version = version + 1')
      await expect(migrate(pool)).rejects.toThrow(/made by a newer tablepay/)
    } finally {
      await pool.end()
    }
  })

  it('two instances creating one record at once: one inserts it, the other runs again and finds it', async () => {
    const [a, b] = await Promise.all([open(), open()])
    const runs = {a: 0, b: 0}
    // both have read "absent" before either writes: each first read waits for the other's; a run again passes
    let readAbsent = 0
    let bothRead!: () => void
    const barrier = new Promise<void>((resolve) => (bothRead = resolve))
    const create = (storage: PgStorage, name: 'a' | 'b') =>
      storage.unit(async (tx) => {
        runs[name]++
        const found = await tx.get('idempotency_keys', 'acct_a\u0000api\u0000once')
        if (found) return `replayed ${found.key}`
        if (++readAbsent === 2) bothRead()
        await barrier
        tx.put('idempotency_keys', 'acct_a\u0000api\u0000once', {id: 'once', account_id: 'acct_a', key: name} as never)
        return `made ${name}`
      })
    const answers = await Promise.all([create(a, 'a'), create(b, 'b')])
    const made = answers.filter((answer) => answer.startsWith('made'))
    expect(made).toHaveLength(1)
    const winner = made[0]!.slice(-1)
    expect(answers).toContain(`replayed ${winner}`)
    expect(runs.a + runs.b).toBe(3)
  })

  it("tells each instance's listeners of the other's units, small ones inline and many keys through the changes table", async () => {
    const [a, b] = await Promise.all([open(), open()])
    const heard: (readonly Change[])[] = []
    const own: (readonly Change[])[] = []
    b.subscribe((changes) => heard.push(changes))
    a.subscribe((changes) => own.push(changes))
    // their keys alone pass a notification's 7,000 bytes (src/postgres/notice.ts)
    const large = Array.from({length: 300}, (_, i) => `evt_large_${i}`)
    await a.unit(async (tx) => tx.put('events', 'evt_small', event('evt_small')))
    await a.unit(async (tx) => {
      for (const id of large) tx.put('events', id, event(id))
    })
    await expect.poll(() => heard.length).toBe(2)
    expect(heard[0]).toEqual([['events', 'evt_small', event('evt_small')]])
    expect(heard[1]!.map((change) => change[1])).toEqual(large)
    expect(JSON.stringify(heard[1]).length).toBeGreaterThan(8000)
    expect(await query('SELECT count(*)::int AS n FROM changes')).toEqual([{n: 1}])
    // an instance hears its own units once, when they commit, not again through the database
    expect(own).toHaveLength(2)
  })

  it('trims the changes table after a unit told through it, one that deletes nothing too', async () => {
    const a = await open()
    await query("INSERT INTO changes (at, changes) VALUES (now() - interval '10 minutes', '[]')")
    const large = Array.from({length: 300}, (_, i) => `evt_trim_${i}`)
    await a.unit(async (tx) => {
      for (const id of large) tx.put('events', id, event(id))
    })
    // what was told more than 5 minutes ago goes; the unit's own stays for the instances to read
    await expect
      .poll(() => query("SELECT count(*)::int AS n FROM changes WHERE at < now() - interval '5 minutes'"))
      .toEqual([{n: 0}])
    expect(await query('SELECT count(*)::int AS n FROM changes')).toEqual([{n: 1}])
  })

  it('alone, commits without notifying; a unit committing as another instance starts is told to it once it has', async () => {
    const a = await open()
    const setting = (value: number) => ({id: 'k', account_id: '', value}) as never
    await a.unit(async (tx) => tx.put('settings', 'k', setting(1)))
    const holder = new pg.Client({connectionString: db.url})
    await holder.connect()
    try {
      // the row held, so that the unit's one query, built while a is alone, waits in the database
      await holder.query("BEGIN; SELECT 1 FROM settings WHERE id = 'k' FOR UPDATE")
      const writing = a.unit(async (tx) => tx.put('settings', 'k', setting(2)))
      // the unit's query, waiting on the row in this test's database
      const waiting = () =>
        query<{query: string}>(
          "SELECT query FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
        )
      await expect.poll(async () => (await waiting()).length).toBe(1)
      const [unit] = await waiting()
      expect(unit!.query).toMatch(/EXECUTE tp_commit_number;\s*COMMIT$/)
      const b = await open()
      const heard: (readonly Change[])[] = []
      b.subscribe((changes) => heard.push(changes))
      await holder.query('COMMIT')
      await writing
      await expect.poll(() => heard).toEqual([[['settings', 'k', setting(2)]]])
    } finally {
      await holder.end()
    }
  })

  it("reads back another instance's records only for the collections its listeners need", async () => {
    const [a, b] = await Promise.all([open(), open()])
    const heard: (readonly Change[])[] = []
    const unsubscribe = b.subscribe((changes) => heard.push(changes), ['settings'])
    const setting = {id: 'clock', account_id: '', value: 5}
    await a.unit(async (tx) => {
      tx.put('events', 'evt_unread', event('evt_unread'))
      tx.put('settings', 'clock', setting as never)
    })
    await expect.poll(() => heard.length).toBe(1)
    expect(heard[0]).toEqual([['settings', 'clock', setting]])
    // a listener for every collection (a live stream) makes the instance read back the rest too
    unsubscribe()
    b.subscribe((changes) => heard.push(changes))
    await a.unit(async (tx) => tx.put('events', 'evt_read', event('evt_read')))
    await expect.poll(() => heard.length).toBe(2)
    expect(heard[1]).toEqual([['events', 'evt_read', event('evt_read')]])
  })

  it('writes a large unit with its values bound, and tells the other instance its records by key, read back whole', async () => {
    const [a, b] = await Promise.all([open(), open()])
    const heard: (readonly Change[])[] = []
    b.subscribe((changes) => heard.push(changes))
    await a.unit(async (tx) => tx.put('events', 'evt_gone', event('evt_gone')))
    await expect.poll(() => heard.length).toBe(1)
    // a snapshot's size: more than LARGE_BYTES (src/postgres/bulk.ts) of records
    const padded = (id: string) => ({...(event(id) as object), note: `"é\\\u0000${'x'.repeat(400)}`}) as never
    const keyId = 'acct_a\u0000api\u0000k\\1'
    const ids = Array.from({length: 200}, (_, i) => `evt_big_${i}`)
    await a.unit(async (tx) => {
      await tx.get('events', 'evt_gone')
      tx.delete('events', 'evt_gone')
      for (const id of ids) tx.put('events', id, padded(id))
      tx.put('idempotency_keys', keyId, {id: keyId, account_id: 'acct_a', key: keyId} as never)
      tx.put('events', ids[0]!, padded(ids[0]!))
    })
    await expect.poll(() => heard.length).toBe(2)
    const told = heard[1]!
    expect(told.map(([collection, id, record]) => [collection, id, record === null])).toEqual([
      ['events', 'evt_gone', true],
      ...ids.map((id) => ['events', id, false]),
      ['idempotency_keys', keyId, false],
      ['events', ids[0], false],
    ])
    expect(JSON.stringify(told[1]![2])).toBe(JSON.stringify(padded(ids[0]!)))
    expect((told.at(-2)![2] as {id: string}).id).toBe(keyId)
    // each record byte for byte, in the places it was first written in
    const listed = await a.list('events', 'acct_a')
    expect(listed.map((record) => record.id)).toEqual(ids)
    expect(JSON.stringify(listed[7])).toBe(JSON.stringify(padded(ids[7]!)))
    expect((await a.get('idempotency_keys', keyId))?.id).toBe(keyId)
    // the changes table holds the keys, not a copy of the records
    const [row] = await query<{n: number}>('SELECT length(changes::text)::int AS n FROM changes')
    expect(row!.n).toBeLessThan(20_000)
  })

  it("saves a snapshot byte for byte as snapshotRecord makes it of the account's records, refunds counted, replacing one of its name", async () => {
    const storage = await open()
    const head = (at: string) => snapshotHead('lunch', 'acct_a', {created_at: at, clock_offset_ms: 7})
    const payment = (id: string, refunds: number, account = 'acct_a') =>
      ({id, account_id: account, refunds: Array.from({length: refunds}, (_, i) => ({id: `re_${i}`}))}) as never
    const keyId = 'acct_a\u0000api\u0000k\\1'
    await storage.unit(async (tx) => {
      tx.put('checks', 'chk_2', {id: 'chk_2', account_id: 'acct_a', note: 'é "quoted" \\ \u0000'} as never)
      tx.put('checks', 'chk_1', {id: 'chk_1', account_id: 'acct_a', zeta: 1, alpha: [1, null]} as never)
      tx.put('checks', 'chk_b', {id: 'chk_b', account_id: 'acct_b'} as never)
      tx.put('payments', 'pay_1', payment('pay_1', 2))
      tx.put('payments', 'pay_2', payment('pay_2', 1))
      tx.put('payments', 'pay_b', payment('pay_b', 4, 'acct_b'))
      tx.put('events', 'evt_1', event('evt_1'))
      tx.put('idempotency_keys', keyId, {id: keyId, account_id: 'acct_a', key: keyId} as never)
    })
    await storage.unit((tx) => tx.saveSnapshot(head('2026-01-01T00:00:00.000Z')))
    const saved = await storage.unit((tx) => tx.saveSnapshot(head('2026-01-02T00:00:00.000Z')))
    const records = Object.fromEntries(
      await Promise.all(STORED_COLLECTIONS.map(async (name) => [name, await storage.list(name, 'acct_a')])),
    )
    const expected = snapshotRecord(head('2026-01-02T00:00:00.000Z'), records as never)
    expect(expected.counts).toMatchObject({checks: 2, payments: 2, refunds: 3, events: 1, idempotency_keys: 1})
    expect(saved).toEqual({...head('2026-01-02T00:00:00.000Z'), counts: expected.counts})
    const rows = await query<{text: string}>('SELECT doc::text AS text FROM snapshots')
    expect(rows.map((row) => row.text)).toEqual([JSON.stringify(expected)])
  })

  it("refuses a save of records past PostgreSQL's longest text (1 GB) as one too long to save, storing nothing", async () => {
    const storage = await open()
    // written by the database itself: 1.08 GB it fails to join before it compares the length
    for (const id of ['chk_far1', 'chk_far2'])
      await query(
        `INSERT INTO checks (id, account_id, doc) VALUES ($1, 'acct_a', json_build_object('id', $1::text, 'note', repeat('x', 540000000)))`,
        [id],
      )
    await expect(
      storage.unit((tx) => tx.saveSnapshot(snapshotHead('far', 'acct_a', {created_at: '2026-01-01T00:00:00.000Z'}))),
    ).rejects.toMatchObject({code: 'payload_too_large', message: expect.stringMatching(/^Snapshot far is not saved/)})
    expect(await query('SELECT id FROM snapshots')).toEqual([])
    // the database writes and joins 1.08 GB: 38–47 s alone on 2 cores, past a minute beside other work
  }, 180_000)

  it('refuses to read a snapshot an earlier version saved past the longest string Node makes, and reads on', async () => {
    const storage = await open()
    // 540 million bytes: read, node-postgres would throw outside the query, ending the process
    await query(
      `INSERT INTO snapshots (id, account_id, doc) VALUES ('acct_a/old', 'acct_a', json_build_object('id', 'acct_a/old', 'note', repeat('x', 540000000)))`,
    )
    await expect(storage.get('snapshots', 'acct_a/old')).rejects.toMatchObject({code: 'ERR_STRING_TOO_LONG'})
    await expect(storage.unit((tx) => tx.get('snapshots', 'acct_a/old'))).rejects.toMatchObject({
      code: 'ERR_STRING_TOO_LONG',
    })
    expect(await storage.get('snapshots', 'acct_a/none')).toBeUndefined()
    // the database writes 540 MB, and sends it twice: 56 s in a loaded run, past a minute in another
  }, 180_000)

  it('lists snapshots without their records: from the head a save, an import or the migration wrote, else read whole', async () => {
    const before = MIGRATIONS.findIndex((statements) =>
      statements.some((s) => s.includes('ADD COLUMN IF NOT EXISTS head')),
    )
    await query('CREATE TABLE tablepay_schema (version integer NOT NULL)')
    await query('INSERT INTO tablepay_schema (version) VALUES ($1)', [before])
    for (const statement of MIGRATIONS.slice(0, before).flat()) await query(statement)
    const older = snapshotOf('older', 'acct_a', [{id: 'chk_1'}])
    await query("INSERT INTO snapshots (id, account_id, doc) VALUES ($1, 'acct_a', $2)", [
      older.id,
      JSON.stringify(older),
    ])

    const storage = await open()
    const saved = await storage.unit((tx) => tx.saveSnapshot(snapshotHead('newer', 'acct_a')))
    // an import puts the record whole; its name needs JSON's escapes
    const imported = snapshotOf('imp\\"orted', 'acct_a', [])
    await storage.unit(async (tx) => tx.put('snapshots', imported.id, imported))
    // an instance of the version before, still running beside this one, writes no head
    const elder = snapshotOf('elder', 'acct_a', [{id: 'chk_2'}])
    await query("INSERT INTO snapshots (id, account_id, doc) VALUES ($1, 'acct_a', $2)", [
      elder.id,
      JSON.stringify(elder),
    ])
    expect(await storage.snapshots('acct_a')).toEqual([
      withoutRecords(older),
      saved,
      withoutRecords(imported),
      withoutRecords(elder),
    ])
    expect(await storage.snapshots('acct_b')).toEqual([])
  })

  describe("a record's changes reach the listeners in commit order", () => {
    const note = (doc: string, id = 'chk_1') => ({id, account_id: 'acct_a', note: doc}) as never
    const notesOf = (changes: readonly Change[]) => changes.map((change) => (change[2] as {note?: string}).note)
    const stored = async () => (await query<{note: string}>(`SELECT doc->>'note' AS note FROM checks`))[0]?.note
    /** A unit that reads the record, as every change to one does, and writes it back with `doc`. */
    const rewrite = (storage: PgStorage, doc: string, durable?: (changes: readonly Change[]) => void) =>
      storage.unit(async (tx) => {
        await tx.get('checks', 'chk_1')
        tx.put('checks', 'chk_1', note(doc))
      }, durable)

    /** An instance whose connections go through a relay, which holds the answers on one of them (`holdOne`). */
    async function behindRelay(pick: (sent: string) => boolean, atOnce = false) {
      const picked = holdOne(pick, atOnce)
      const {link, url} = await databaseBehindRelay(picked.tap, db)
      return {...picked, storage: await open({url}), cut: () => link.cut()}
    }

    it("of one instance, when the first unit's answer comes back after the second's", async () => {
      await (await open()).unit(async (tx) => tx.put('checks', 'chk_1', note('zero')))
      const {storage, holding, release, cut} = await behindRelay(
        (sent) => sent.includes('COMMIT') && sent.includes('"first"'),
        true,
      )
      try {
        const heard: (string | undefined)[] = []
        const durable: (string | undefined)[] = []
        storage.subscribe((changes) => heard.push(...notesOf(changes)))
        const first = rewrite(storage, 'first', (changes) => durable.push(...notesOf(changes)))
        await holding
        // committed: only its answer is held
        await expect.poll(stored).toBe('first')
        await rewrite(storage, 'second', (changes) => durable.push(...notesOf(changes)))
        release()
        await first
        expect(heard).toEqual(['second'])
        expect(durable).toEqual(['second'])
      } finally {
        release()
        await cut()
      }
    })

    // a change too large for one notification goes through the changes table, its commit number with it
    it.each([
      ['inline', ''],
      ['through the changes table', 'x'.repeat(8000)],
    ])(
      "of two instances, when the other's notification (%s) comes after this one's own later change",
      async (_, pad) => {
        const other = await open()
        await other.unit(async (tx) => tx.put('checks', 'chk_1', note('zero')))
        const {storage, hold, release, cut} = await behindRelay((sent) => sent.includes('LISTEN'))
        try {
          hold()
          const heard: (string | undefined)[] = []
          storage.subscribe((changes) => heard.push(...notesOf(changes)))
          // the other instance's change is told through the listening connection, whose answers are held
          await rewrite(other, `first${pad}`)
          await rewrite(storage, 'second')
          release()
          // the other's next change shows that its notifications have come through
          await other.unit(async (tx) => tx.put('checks', 'chk_2', note('x', 'chk_2')))
          await expect.poll(() => heard.length).toBe(2)
          expect(heard).toEqual(['second', 'x'])
        } finally {
          release()
          await cut()
        }
      },
    )
  })
})
