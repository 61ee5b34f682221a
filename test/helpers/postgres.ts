import {randomBytes} from 'node:crypto'
import pg from 'pg'
import {inject} from 'vitest'
import {PgStorage} from '../../src/postgres/storage.js'
import {COLLECTIONS} from '../../src/postgres/schema.js'
import {Store} from '../../src/store/store.js'

/** Whether this run's server helpers start on PostgreSQL (the `postgres` project of vitest.config.ts). */
export const onPostgres = process.env.TABLEPAY_TEST_STORE === 'postgres'

/** Runs `sql` on the run's PostgreSQL, as its admin, in `database` (its `postgres` database by default). */
export async function adminQuery(sql: string, database?: string): Promise<void> {
  const url = new URL(inject('postgresUrl'))
  if (database) url.pathname = `/${database}`
  const client = new pg.Client({connectionString: url.toString()})
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}

export interface TestDatabase {
  /** The URL a server connects to. */
  url: string
  /** Drops the database, closing what is still connected to it. */
  drop(): Promise<void>
}

/**
 * Emptied databases this worker may hand out again. CREATE DATABASE and
 * DROP DATABASE copy and delete a whole catalog, ~145 ms of the database's
 * CPU for each of the ~180 test servers of a run; emptying one takes ~20 ms.
 */
const emptied: string[] = []

const newName = () => `tablepay_${randomBytes(6).toString('hex')}`

/**
 * Closes what is still connected to `name`, renames it (whatever still holds
 * its old URL never reaches the next test) and empties it, for the next
 * `createTestDatabase`. A database something reconnects to is dropped instead.
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
  await adminQuery('DROP SCHEMA public CASCADE; CREATE SCHEMA public', renamed)
  emptied.push(renamed)
}

/**
 * An empty database on the run's PostgreSQL (test/helpers/postgres-setup.ts), for one test server:
 * tests never see each other's records, whatever order they run in.
 *
 * @example
 * const db = await createTestDatabase()
 * const server = await startServer({port: 0, host: '127.0.0.1', database: db.url})
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  let name = emptied.pop()
  if (!name) {
    name = newName()
    await adminQuery(`CREATE DATABASE ${name}`)
  }
  const url = new URL(inject('postgresUrl'))
  url.pathname = `/${name}`
  let released: Promise<void> | undefined
  return {url: url.toString(), drop: () => (released ??= release(name))}
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
