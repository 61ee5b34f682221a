import {randomBytes} from 'node:crypto'
import pg from 'pg'
import {inject} from 'vitest'
import {PgStorage} from '../../src/postgres/storage.js'
import {migrate} from '../../src/postgres/migrations.js'
import {COLLECTIONS, MIGRATIONS} from '../../src/postgres/schema.js'
import {Store} from '../../src/store/store.js'

/** Whether this run's server helpers start on PostgreSQL (the `postgres` project of vitest.config.ts). */
export const onPostgres = process.env.TABLEPAY_TEST_STORE === 'postgres'

/** One connection of this worker's to the run's PostgreSQL, as its admin: a connection costs the database ~5 ms. */
let admin: pg.Pool | undefined

/** Runs `sql` on the run's PostgreSQL, as its admin. */
async function adminQuery(sql: string): Promise<void> {
  admin ??= new pg.Pool({connectionString: inject('postgresUrl'), max: 1, allowExitOnIdle: true})
  await admin.query(sql)
}

export interface TestDatabase {
  /** The URL a server connects to. */
  url: string
  /** Drops the database, closing what is still connected to it. */
  drop(): Promise<void>
}

/**
 * Databases this worker may hand out again, by what they hold. CREATE and
 * DROP DATABASE copy and delete a whole catalog, and migrating an empty
 * database makes every table anew: ~250 ms of the database's CPU for each of
 * the ~180 test servers of a run. Emptying a database takes ~20 ms.
 */
const spare = {migrated: [] as string[], empty: [] as string[]}

/** The tables, columns, triggers and functions a migrated database has, as this worker's first one had them. */
let migratedShape: string | undefined

const SHAPE = `SELECT (SELECT max(version) FROM tablepay_schema) AS version, md5(string_agg(part, ',' ORDER BY part)) AS shape
  FROM (SELECT c.relname || ':' || c.relkind::text || ':' || coalesce((SELECT string_agg(a.attname || ' ' ||
      format_type(a.atttypid, a.atttypmod), ';' ORDER BY a.attnum) FROM pg_attribute a
      WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped), '') AS part
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'
    UNION ALL SELECT 'trigger:' || t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
      JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND NOT t.tgisinternal
    UNION ALL SELECT 'function:' || p.proname || ':' || md5(p.prosrc) FROM pg_proc p
      JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public') parts`

/** The URL of `database` on the run's PostgreSQL, as its admin. */
function urlOf(database: string): string {
  const url = new URL(inject('postgresUrl'))
  url.pathname = `/${database}`
  return url.toString()
}

/**
 * A pool of a test's own on the database at `url`. Its `end` resolves before its connections have closed: one
 * still closing as the next release of that database terminates it hears so, which is nothing to report.
 */
export function testPool(url: string, max = 1): pg.Pool {
  const pool = new pg.Pool({connectionString: url, max})
  pool.on('error', () => {})
  return pool
}

/** Runs `work` with a pool of `database`, closed after. */
async function inDatabase<T>(database: string, work: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const pool = testPool(urlOf(database))
  try {
    return await work(pool)
  } finally {
    await pool.end()
  }
}

/** The shape of `pool`'s database when it is at this version's schema; undefined for any other. */
async function shapeOf(pool: pg.Pool): Promise<string | undefined> {
  // a database without tablepay_schema (empty, or a test's own schema) is at no version
  const {rows} = await pool.query<{version: number; shape: string}>(SHAPE).catch(() => ({rows: []}))
  return rows[0]?.version === MIGRATIONS.length ? rows[0].shape : undefined
}

/** A new database on the run's PostgreSQL, migrated by this version's `migrate` unless asked `empty`. */
async function createDatabase(empty: boolean): Promise<string> {
  const name = newName()
  await adminQuery(`CREATE DATABASE ${name}`)
  if (!empty)
    await inDatabase(name, async (pool) => {
      await migrate(pool)
      migratedShape ??= await shapeOf(pool)
    })
  return name
}

const newName = () => `tablepay_${randomBytes(6).toString('hex')}`

/**
 * Closes what is still connected to `name` and renames it (whatever still
 * holds its old URL never reaches the next test). A database at this
 * version's schema, as a migration left it, keeps its schema and loses its
 * rows; any other loses its schema too. A database something reconnects to
 * is dropped instead.
 */
async function release(name: string): Promise<void> {
  await adminQuery(`SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE datname = '${name}'`)
  const renamed = newName()
  try {
    await adminQuery(`ALTER DATABASE ${name} RENAME TO ${renamed}`)
  } catch {
    await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    return
  }
  const kept = await inDatabase(renamed, async (pool) => {
    if (migratedShape === undefined || (await shapeOf(pool)) !== migratedShape) {
      await pool.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public')
      return false
    }
    await pool.query(EMPTY_ROWS)
    return true
  })
  spare[kept ? 'migrated' : 'empty'].push(renamed)
}

/**
 * Deletes every row but the schema's version, and starts every sequence again: setval to its start, not yet
 * called, is what ALTER SEQUENCE RESTART leaves, without giving each sequence a new file (a third of a release's
 * CPU in the database).
 */
const EMPTY_ROWS = `DO $$ DECLARE name text; BEGIN
  FOR name IN SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'tablepay_schema' LOOP
    EXECUTE format('DELETE FROM %I', name);
  END LOOP;
  PERFORM setval(format('%I', sequencename), start_value, false) FROM pg_sequences WHERE schemaname = 'public';
END $$`

/**
 * A database of its own on the run's PostgreSQL (test/helpers/postgres-setup.ts), for one test server:
 * tests never see each other's records, whatever order they run in. It holds this version's schema, as
 * a server's first start leaves it, and no rows; `{empty: true}` gives one without even the schema, for
 * a test of the migration itself, and `{encoding}` an empty one of that encoding.
 *
 * @example
 * const db = await createTestDatabase()
 * const server = await startServer({port: 0, host: '127.0.0.1', database: db.url})
 */
export async function createTestDatabase({empty = false, encoding = ''} = {}): Promise<TestDatabase> {
  if (encoding) {
    // never handed out again: the next test would meet its encoding
    const name = newName()
    await adminQuery(`CREATE DATABASE ${name} ENCODING '${encoding}' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0`)
    return {url: urlOf(name), drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)}
  }
  const name = spare[empty ? 'empty' : 'migrated'].pop() ?? (await createDatabase(empty))
  let released: Promise<void> | undefined
  return {url: urlOf(name), drop: () => (released ??= release(name))}
}

/**
 * Every record the database holds, as text, collection by collection in
 * creation order: what the server has made durable, to compare before and
 * after a request.
 *
 * @example
 * const before = await storedIn(db.url)
 */
export async function storedIn(url: string): Promise<string> {
  const client = new pg.Client({connectionString: url})
  await client.connect()
  try {
    let text = ''
    for (const name of COLLECTIONS) {
      const {rows} = await client.query<{doc: string}>(`SELECT doc::text AS doc FROM ${name} ORDER BY seq`)
      for (const row of rows) text += `${name} ${row.doc}\n`
    }
    return text
  } finally {
    await client.end()
  }
}

/**
 * What a test that builds the service itself runs it on: an in-memory store,
 * or in the `postgres` project a fresh database. `close` closes (and drops) it.
 *
 * @example
 * const {store, close} = await openTestStore()
 * const service = await createService(store, url, {})
 */
export async function openTestStore(): Promise<{store: Store | PgStorage; close(): Promise<void>}> {
  if (!onPostgres) {
    const store = await Store.open()
    return {store, close: () => store.close()}
  }
  const db = await createTestDatabase()
  const store = await PgStorage.open({url: db.url})
  return {
    store,
    async close() {
      await store.close()
      await db.drop()
    },
  }
}

/** The sessions on the database that wait for a lock. */
const LOCK_WAITERS = "FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"

/** Resolves once a session on `client`'s database waits for a lock (the statement under test); throws after 10 s. */
export async function untilLockWaited(client: pg.Client, what: string): Promise<void> {
  for (const deadline = Date.now() + 10_000; (await client.query(`SELECT 1 ${LOCK_WAITERS}`)).rowCount === 0;)
    if (Date.now() > deadline) throw new Error(`${what} never waited for a lock`)
}

/** Once a session waits for a lock (`untilLockWaited`), ends it as an administrator's `pg_terminate_backend` does. */
export async function endOnceLockWaited(client: pg.Client, what: string): Promise<void> {
  await untilLockWaited(client, what)
  await client.query(`SELECT pg_terminate_backend(pid) ${LOCK_WAITERS}`)
}

/** A connection of the test's own to the database at `url`, as an administrator's. */
export async function connectAdmin(url: string): Promise<pg.Client> {
  const client = new pg.Client({connectionString: url})
  await client.connect()
  return client
}

/** `url` on its server's `postgres` database: a database is renamed or closed from another. */
export const maintenanceUrl = (url: string): string => Object.assign(new URL(url), {pathname: '/postgres'}).href
