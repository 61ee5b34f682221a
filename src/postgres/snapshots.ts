import {
  type SavedSnapshot,
  SNAPSHOT_COLLECTIONS,
  type SnapshotHead,
  snapshotRecord,
  type SnapshotRecords,
  STORED_COLLECTIONS,
} from '../domain/snapshots.js'
import {tooLongToSave} from '../domain/snapshot-errors.js'
import {WRITTEN_MAX} from '../domain/json-memory.js'
import type {SnapshotRecord} from '../domain/records.js'
import {literal} from './literal.js'
import type {Sql} from './reader.js'
import {text} from './text.js'

const PAYMENTS = STORED_COLLECTIONS.indexOf('payments')

/** PostgreSQL's SQLSTATE for a value past its own limits: a text longer than 1 GB. */
const PROGRAM_LIMIT_EXCEEDED = '54000'

/** The key that follows a snapshot's counts: the fields before it are all a list shows. */
const RECORDS_KEY = ',"records":'

const NO_RECORDS = Object.fromEntries(STORED_COLLECTIONS.map((name) => [name, []])) as unknown as SnapshotRecords

/**
 * Of each stored collection, as `c0`, `c1`… in STORED_COLLECTIONS' order: the account's (`$1`) count, their
 * texts oldest first, and of payments the refunds they hold. Each reads its table's `(account_id, seq)`
 * index, so the records come in the order the aggregate asks for and are not sorted.
 */
const EACH = STORED_COLLECTIONS.map((name, c) => {
  const refunds = c === PAYMENTS ? `, coalesce(sum(json_array_length(doc->'refunds')), 0) AS refunds` : ''
  return `(SELECT count(*) AS n, coalesce(string_agg(doc::text, ',' ORDER BY seq), '') AS texts${refunds}
    FROM ${name} WHERE account_id = $1::text) AS c${c}`
}).join(',\n')

/** The parts of `snapshotCounts`' JSON: refunds are counted in their payments. */
const COUNTS = SNAPSHOT_COLLECTIONS.flatMap((name, i) => [
  literal(`${i === 0 ? '{' : ','}"${name}":`),
  name === 'refunds' ? `c${PAYMENTS}.refunds` : `c${STORED_COLLECTIONS.indexOf(name)}.n`,
])

/** The parts of a snapshot's `records` JSON: each collection's texts in an array. */
const RECORDS = STORED_COLLECTIONS.flatMap((name, c) => [literal(`${c === 0 ? '{' : '],'}"${name}":[`), `c${c}.texts`])

/**
 * The save as one statement: the database reads the account's records at one moment, as one statement does,
 * and writes the snapshot's JSON from their stored texts, `$3` before its counts and `$4` after its records:
 * byte for byte the JSON of `snapshotRecord` (its fields in that order), which the other store writes. The
 * records never travel to the server and back: with 1,000 checks and their events (2.7 MB), reading them
 * parsed took 55–115 ms here and writing the snapshot back 60–90 ms (docs/postgres.md, "Snapshots"). A JSON
 * longer than `$5` bytes is not written: read back, a text past V8's longest string ends the process
 * (node-postgres makes it a string as the bytes arrive, outside any query's promise).
 */
const SAVE = `WITH counted AS (SELECT concat(${COUNTS.join(', ')}, '}') AS counts,
    concat(${RECORDS.join(', ')}, ']}') AS records FROM ${EACH}),
  made AS (SELECT counts, concat($3::text, counts, ${literal(RECORDS_KEY)}, records, $4::text) AS doc FROM counted),
  saved AS (INSERT INTO snapshots (id, account_id, doc, head)
    SELECT $2::text, $1::text, doc::json, $3::text || counts FROM made WHERE octet_length(doc) <= $5
    ON CONFLICT (id) DO UPDATE SET account_id = excluded.account_id, doc = excluded.doc, head = excluded.head
    RETURNING 1)
  SELECT counts, EXISTS (SELECT FROM saved) AS saved FROM made`

/**
 * Saves the snapshot `head` of the account's records in the unit `sql` (`UnitOfWork.saveSnapshot`).
 *
 * @example
 * const saved = await saveSnapshot(tx.sql, {id: 'acct_demo/lunch', name: 'lunch', …})
 */
export async function saveSnapshot(sql: Sql, head: SnapshotHead): Promise<SavedSnapshot> {
  // the JSON of the snapshot of no records, cut where the database puts the counts and the records
  const empty = JSON.stringify(snapshotRecord(head, NO_RECORDS))
  const [before, after] = [
    empty.slice(0, empty.indexOf('"counts":') + 9),
    empty.slice(empty.lastIndexOf(',"account_id":')),
  ]
  const {id, name, created_at, clock_offset_ms, account_id} = head
  const {rows} = await sql
    .query<{counts: string; saved: boolean}>(SAVE, [text(account_id), text(id), before, after, WRITTEN_MAX])
    .catch((error: unknown) => {
      // past PostgreSQL's longest text (1 GB), which it meets while it joins the records, before `$5` is compared
      throw (error as {code?: unknown}).code === PROGRAM_LIMIT_EXCEEDED ? tooLongToSave(name) : error
    })
  if (!rows[0]!.saved) throw tooLongToSave(name)
  return {id, name, created_at, clock_offset_ms, counts: JSON.parse(rows[0]!.counts) as never, account_id}
}

/** A snapshot's `head` column, made from its record's JSON as each write stores it: the fields before its records. */
export const snapshotHead = (json: string): string => json.slice(0, json.indexOf(RECORDS_KEY))

/**
 * The heads of the account's snapshots, oldest first. Cutting each record's text in the query instead
 * (`substr`) read each whole, as `json` becomes text through its output function: a list of 10 snapshots of
 * 1,000 checks took 67–71 ms of the database's, and reading them parsed 280–370 ms (docs/postgres.md,
 * "Snapshots"); a generated column made that cut at every save, 30 ms more each.
 */
const HEADS = `SELECT head, CASE WHEN head IS NULL THEN doc END AS doc FROM snapshots WHERE account_id = $1::text
  ORDER BY seq`

/**
 * The account's snapshots without their records (`Reader.snapshots`): the fields before them.
 *
 * @example
 * const saved = await savedSnapshots(pool, 'acct_demo')
 */
export async function savedSnapshots(sql: Sql, accountId: string): Promise<SavedSnapshot[]> {
  const {rows} = await sql.query<{head: string | null; doc: SnapshotRecord | null}>(HEADS, [text(accountId)])
  return rows.map(({head, doc}) => {
    if (head !== null) return {...(JSON.parse(`${head}}`) as SavedSnapshot), account_id: accountId}
    // saved since the migration by an instance of an earlier version, which writes no head: read whole
    const {records: _, ...saved} = doc!
    return saved
  })
}
