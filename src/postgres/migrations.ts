import type pg from 'pg'
import {isLockWait} from './errors.js'
import {MIGRATIONS} from './schema.js'
import {PROBED, PROBED_POOLED} from './pool.js'
import {LOCKS_GIVE_UP_S} from './unit-sql.js'

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

/**
 * How long one try of a version waits for a table's lock, in seconds. Its `ALTER TABLE` waiting for a
 * transaction left open on that table (a `psql` session's) queues every later lock on the table behind it,
 * running instances' reads and writes among them: they wait this long at most, then go while the version
 * waits to try again (docs/postgres.md, "Migrations").
 */
const TRY_LOCK_S = 2

/** The sessions other than this one that hold a lock on one of the tables `$1` in a transaction older than one try. */
const HOLDERS = `SELECT DISTINCT a.pid, coalesce(nullif(a.application_name, ''), a.usename::text) AS who, a.state,
    to_char(a.xact_start, 'HH24:MI:SS TZ') AS since
  FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
  WHERE l.granted AND l.relation = ANY (SELECT to_regclass(name)::oid FROM unnest($1::text[]) AS name)
    AND a.pid <> pg_backend_pid()
    -- another role's session shows no xact_start without pg_read_all_stats: named all the same
    AND (a.xact_start IS NULL OR a.xact_start < clock_timestamp() - make_interval(secs => ${TRY_LOCK_S}))
  ORDER BY a.pid`

/** The encodings that keep every character a record may hold: UTF8, and SQL_ASCII, which keeps the bytes it is sent. */
const ENCODINGS = ['UTF8', 'SQL_ASCII']

/**
 * Brings the database's schema up to this version's, once, under an
 * advisory lock: instances started together migrate one after the other,
 * and each version runs in one transaction (docs/postgres.md). A database
 * whose encoding cannot hold every character (`ENCODINGS`), whose schema
 * holds tables of tablepay's names that it did not make (`TAKEN`), or whose
 * tablepay schema is newer than this version's, is refused. A version that
 * waits `giveUpMs` for its tables' locks fails the start, naming the
 * sessions that hold them.
 *
 * @example
 * await migrate(pool) // resolves with the number of versions it ran
 */
export async function migrate(pool: pg.Pool, giveUpMs = LOCKS_GIVE_UP_S * 1000): Promise<number> {
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
      for (let version = from; version < MIGRATIONS.length; version++) await upgrade(client, version, giveUpMs)
      return MIGRATIONS.length - from
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK])
    }
  } finally {
    await client.query(PROBED_POOLED).catch((error: Error) => (broken = error))
    client.release(broken)
  }
}

/**
 * Runs `version` in one transaction, tried again while a lock it needs stays held for a try's `TRY_LOCK_S`, for
 * `giveUpMs` in all: then it fails, naming the sessions that hold its tables.
 */
async function upgrade(client: pg.PoolClient, version: number, giveUpMs: number): Promise<void> {
  const started = performance.now()
  for (;;) {
    try {
      await client.query(`BEGIN; SET LOCAL lock_timeout = '${TRY_LOCK_S}s'`)
      for (const statement of MIGRATIONS[version]!) await client.query(statement)
      await client.query('UPDATE tablepay_schema SET version = $1', [version + 1])
      await client.query('COMMIT')
      return
    } catch (error) {
      await client.query('ROLLBACK')
      if (!isLockWait(error)) throw error
      if (performance.now() - started >= giveUpMs) throw await heldUp(client, version, performance.now() - started)
    }
  }
}

/** The start's error for `version`, held up `waitedMs` by locks on its tables. */
async function heldUp(client: pg.PoolClient, version: number, waitedMs: number): Promise<Error> {
  const {rows} = await client.query<{pid: number; who: string; state: string | null; since: string | null}>(HOLDERS, [
    TABLES,
  ])
  const holders = rows.map(({pid, who, state, since}) => {
    const about = [who, state, since && `in a transaction since ${since}`].filter(Boolean)
    return `pid ${pid} (${about.join(', ')})`
  })
  const pid = rows[0]?.pid ?? 'PID'
  return new Error(
    `postgres: the upgrade to schema version ${version + 1} waited ${Math.round(waitedMs / 1000)} s for its ` +
      `tables, which ${holders.length > 0 ? holders.join(', ') : 'another session'} ${holders.length > 1 ? 'hold' : 'holds'}; ` +
      'end that transaction ' +
      `(COMMIT or ROLLBACK in that session, or SELECT pg_terminate_backend(${pid})), then start again`,
  )
}
