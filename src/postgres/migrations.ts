import type pg from 'pg'
import {MIGRATIONS} from './schema.js'
import {PROBED, PROBED_POOLED} from './pool.js'

/** The advisory lock every instance takes to migrate: the first one migrates, the others wait and find nothing to do. */
const MIGRATION_LOCK = 0x7461626c6570

/** The tables the migrations make. */
const TABLES = MIGRATIONS.flat().flatMap((statement) => /^CREATE TABLE IF NOT EXISTS (\w+)/.exec(statement)?.[1] ?? [])

/**
 * Of the tables `$1`, those already in the schema tablepay makes its own in, while it has made none there
 * (no `tablepay_schema`): something else made them, and `CREATE TABLE IF NOT EXISTS` would take them for its own.
 */
const TAKEN = `SELECT string_agg(name, ', ' ORDER BY name) AS taken FROM unnest($1::text[]) AS name
  WHERE CASE WHEN current_schema() IS NULL THEN false
    ELSE to_regclass(format('%I.tablepay_schema', current_schema())) IS NULL
      AND to_regclass(format('%I.%I', current_schema(), name)) IS NOT NULL END`

/** The encodings that keep every character a record may hold: UTF8, and SQL_ASCII, which keeps the bytes it is sent. */
const ENCODINGS = ['UTF8', 'SQL_ASCII']

/**
 * Brings the database's schema up to this version's, once, under an
 * advisory lock: instances started together migrate one after the other,
 * and each version runs in one transaction (docs/postgres.md). A database
 * whose encoding cannot hold every character (`ENCODINGS`), whose schema
 * holds tables of tablepay's names that it did not make (`TAKEN`), or whose
 * tablepay schema is newer than this version's, is refused.
 *
 * @example
 * await migrate(pool) // resolves with the number of versions it ran
 */
export async function migrate(pool: pg.Pool): Promise<number> {
  const client = await pool.connect()
  let broken: Error | undefined
  try {
    // another instance's migration takes as long as it takes: the session's settings, with no lock timeout,
    // until the connection goes back to the pool with the pool's
    await client.query(PROBED)
    // else a push with a character the database cannot hold would answer 500
    const {rows: shown} = await client.query<{server_encoding: string}>('SHOW server_encoding')
    const encoding = shown[0]!.server_encoding
    if (!ENCODINGS.includes(encoding))
      throw new Error(
        `postgres: the database's encoding is ${encoding}, which cannot hold every character a check may carry; ` +
          `point tablepay at a UTF8 database (createdb --encoding UTF8 --template template0 NAME)`,
      )
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK])
    try {
      const {rows: taken} = await client.query<{taken: string | null}>(TAKEN, [TABLES])
      if (taken[0]!.taken !== null)
        throw new Error(
          `postgres: the schema already holds tables of tablepay's names that it did not make (${taken[0]!.taken}); ` +
            'give tablepay a database of its own, or a schema (CREATE SCHEMA tablepay, then ' +
            '?options=-c%20search_path%3Dtablepay on the URL)',
        )
      await client.query('CREATE TABLE IF NOT EXISTS tablepay_schema (version integer NOT NULL)')
      const {rows} = await client.query<{version: number}>('SELECT version FROM tablepay_schema')
      if (rows.length === 0) await client.query('INSERT INTO tablepay_schema (version) VALUES (0)')
      const from = rows[0]?.version ?? 0
      if (from > MIGRATIONS.length)
        throw new Error(
          `postgres: the database has schema version ${from}, made by a newer tablepay than this one ` +
            `(which knows ${MIGRATIONS.length}); upgrade tablepay, or point it at another database`,
        )
      for (let version = from; version < MIGRATIONS.length; version++) {
        await client.query('BEGIN')
        try {
          for (const statement of MIGRATIONS[version]!) await client.query(statement)
          await client.query('UPDATE tablepay_schema SET version = $1', [version + 1])
          await client.query('COMMIT')
        } catch (error) {
          await client.query('ROLLBACK')
          throw error
        }
      }
      return MIGRATIONS.length - from
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK])
    }
  } finally {
    await client.query(PROBED_POOLED).catch((error: Error) => (broken = error))
    client.release(broken)
  }
}
