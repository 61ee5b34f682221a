import {randomBytes} from 'node:crypto'
import pg from 'pg'
import {inject} from 'vitest'

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
