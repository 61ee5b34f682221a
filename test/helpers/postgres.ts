import {randomBytes} from 'node:crypto'
import pg from 'pg'
import {inject} from 'vitest'
import {PgStorage} from '../../src/postgres/storage.js'
import {COLLECTIONS} from '../../src/postgres/schema.js'
import {Store} from '../../src/store/store.js'

/** Whether this run's server helpers start on PostgreSQL (the `postgres` project of vitest.config.ts). */
export const onPostgres = process.env.TABLEPAY_TEST_STORE === 'postgres'

/** Runs `sql` on the run's PostgreSQL, as its admin. */
export async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({connectionString: inject('postgresUrl')})
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
 * A new, empty database on the run's PostgreSQL (test/helpers/postgres-setup.ts), for one test server:
 * tests never see each other's records, whatever order they run in.
 *
 * @example
 * const db = await createTestDatabase()
 * const server = await startServer({port: 0, host: '127.0.0.1', database: db.url})
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `tablepay_${randomBytes(6).toString('hex')}`
  await adminQuery(`CREATE DATABASE ${name}`)
  const url = new URL(inject('postgresUrl'))
  url.pathname = `/${name}`
  return {url: url.toString(), drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)}
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
