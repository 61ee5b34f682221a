import pg from 'pg'
import {afterEach, beforeEach, expect, it} from 'vitest'
import {lifeLockHeld} from '../../src/postgres/leases.js'
import {PROBED, PROBED_POOLED} from '../../src/postgres/pool.js'
import {scopeOf} from '../../src/postgres/scope.js'
import {PgStorage} from '../../src/postgres/storage.js'
import {createTestDatabase, type TestDatabase} from '../helpers/postgres.js'
import {databaseBehindRelay, holdOne} from '../helpers/relay.js'
import {roundTrips} from '../helpers/wire.js'

// The session that holds an instance's life lock (src/postgres/instance.ts), when the network to the database
// drops: docs/postgres.md, "When the database cannot be reached".

let db: TestDatabase
let admin: pg.Client
const {lifeLock: LIFE_LOCK} = scopeOf('public')

beforeEach(async () => {
  db = await createTestDatabase()
  admin = new pg.Client({connectionString: db.url})
  await admin.connect()
})

afterEach(async () => {
  await admin.end()
  await db.drop()
})

/** The backend that holds the life lock of the instance `owner`, if any. */
async function lifeLockHolder(owner: number): Promise<number | undefined> {
  const {rows} = await admin.query<{pid: number}>(`SELECT pid FROM pg_locks WHERE ${lifeLockHeld('$1', '$2')}`, [
    LIFE_LOCK,
    owner,
  ])
  return rows[0]?.pid
}

it('an instance whose network dropped takes its life lock back from its old session, which the database still holds', async () => {
  const {link, url} = await databaseBehindRelay(undefined, db)
  const storage = await PgStorage.open({url})
  try {
    const owner = storage.shared!.owner
    const old = await lifeLockHolder(owner)
    expect(old).toBeDefined()
    link.drop()
    // the database sees the old session only when its keepalives go unanswered, hours later by default
    const taken = async () => ![undefined, old].includes(await lifeLockHolder(owner))
    await expect.poll(taken, {timeout: 10_000}).toBe(true)
    const {rows} = await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [old])
    expect(rows).toEqual([])
  } finally {
    await storage.close()
    await link.cut()
  }
})

it('a stop while its session opens through a dead network leaves no connection open', async () => {
  const {link, url} = await databaseBehindRelay(undefined, db)
  const storage = await PgStorage.open({url, connectTimeoutMs: 500})
  try {
    link.silence()
    link.drop()
    await expect.poll(() => link.clients).toBe(0)
    // the session tries again a second after its loss, and opens a connection that nothing answers
    await expect.poll(() => link.clients, {timeout: 5_000}).toBeGreaterThan(0)
  } finally {
    await storage.close()
  }
  // each connection that was opening gave up, or was ended by the stop: none keeps the process alive
  await expect.poll(() => link.clients, {timeout: 30_000}).toBe(0)
  await link.cut()
})

it('every connection an instance talks on asks the database to probe it, as the instance does', async () => {
  const wire = roundTrips()
  const {link, url} = await databaseBehindRelay(wire.tap, db)
  const storage = await PgStorage.open({url})
  try {
    await storage.unit(async (tx) => tx.put('events', 'evt_1', {id: 'evt_1', account_id: 'acct_a'} as never))
    // the listening connection, the pool's and the session: else a dropped network leaves them to the database
    const talked = new Set(wire.trips.map((trip) => trip.connection))
    expect(talked.size).toBeGreaterThanOrEqual(3)
    expect([...talked].filter((connection) => !wire.probed.has(connection))).toEqual([])
  } finally {
    await storage.close()
    await link.cut()
  }
})

it("the connection a start migrates on goes back to the pool with the pool's lock timeout, not the migration's none", async () => {
  // one connection in the pool: the migration's
  const storage = await PgStorage.open({url: db.url, poolSize: 1})
  try {
    const {rows} = await storage['sql'].query<{lock: string}>("SELECT current_setting('lock_timeout') AS lock")
    expect(rows).toEqual([{lock: '20s'}])
  } finally {
    await storage.close()
  }
})

it("a connection's opening statement sets aside the database's timeouts for idle sessions and lock waits, the pool's its own", async () => {
  // a hosted database may set them: its idle session and listening connection would be ended every few
  // seconds (another instance then takes over attempts still out), its advisory locks' waits refused
  const database = new URL(db.url).pathname.slice(1)
  await admin.query(`ALTER DATABASE ${database} SET idle_session_timeout = '2s'`)
  await admin.query(`ALTER DATABASE ${database} SET lock_timeout = '20ms'`)
  const client = new pg.Client({connectionString: db.url})
  await client.connect()
  try {
    const shown = async () =>
      (
        await client.query<{idle: string; lock: string}>(
          "SELECT current_setting('idle_session_timeout') AS idle, current_setting('lock_timeout') AS lock",
        )
      ).rows
    await client.query(PROBED)
    expect(await shown()).toEqual([{idle: '0', lock: '0'}])
    // the pool's: a statement outside a unit waits for a lock at most as long as a unit does in all
    await client.query(PROBED_POOLED)
    expect(await shown()).toEqual([{idle: '0', lock: '20s'}])
  } finally {
    await client.end()
    await admin.query(`ALTER DATABASE ${database} RESET idle_session_timeout`)
    await admin.query(`ALTER DATABASE ${database} RESET lock_timeout`)
  }
})

it('a stop whose session no longer answers ends all the same, without waiting for the network to give up', async () => {
  // the answer to the session's last statement, its unlock, never comes
  const silent = holdOne((sent) => sent.includes('pg_advisory_unlock_all'), true)
  const {link, url} = await databaseBehindRelay(silent.tap, db)
  const storage = await PgStorage.open({url})
  try {
    await storage.close()
    await silent.holding
  } finally {
    silent.release()
    await link.cut()
  }
})
