import type {CollectionName} from '../domain/records.js'
import type {Change} from '../service/storage.js'
import {prepared} from './prepared.js'
import {type Sql, text, untext} from './reader.js'
import {COMMITS} from './schema.js'
import type {Notice} from './unit.js'

/** The channel every instance of one database listens on for the others' changes. */
export const CHANNEL = 'tablepay_changes'

/** A notification's payload is at most 8000 bytes: larger changes go through the `changes` table. */
const NOTIFY_BYTES = 7000

/** A unit's notice, when its changes fit in a notification: `$1`, the commit number, `$2`. */
const INLINE = prepared(
  'tp_notice',
  `SELECT pg_notify('${CHANNEL}', $1::text || n || $2::text), n AS commit FROM nextval('${COMMITS}') n`,
)

/**
 * A unit's notice through the `changes` table: `$1`, its changes (or a large unit's keys, `$3`: `RecordKeys`);
 * `$2`, the instance.
 */
const THROUGH_TABLE_SQL = `WITH row AS (INSERT INTO changes (changes) VALUES ($1::json) RETURNING seq)
  SELECT pg_notify('${CHANNEL}', json_build_object('from', $2::text, 'seq', seq, 'commit', n, 'keys', $3::boolean)::text),
    n AS commit FROM row, nextval('${COMMITS}') n`
const THROUGH_TABLE = prepared('tp_large_notice', THROUGH_TABLE_SQL)

/**
 * A large unit's changes as the other instances are told of them: each
 * record's collection, id, and whether it was written (`1`) or deleted
 * (`0`), in order. They read the records written back from the tables
 * (`readBack`): a snapshot's save or restore writes megabytes, which a copy
 * in `changes` would double (docs/postgres.md, "Large units").
 */
export type RecordKeys = [collection: CollectionName, id: string, written: 0 | 1][]

/**
 * How an instance tells the others of a unit's changes when it commits: inline
 * when they fit in a notification, else through the `changes` table. The
 * statement draws the unit's commit number after its writes, so of two units
 * that write one record the later draws the higher, and answers with it as
 * `commit`. `ownNotes` is how the instance's inline notifications begin.
 */
export function notice(instance: string, ownNotes: string): Notice {
  return {
    inline(json, unit) {
      // {"from":…,"commit":n,"changes":[…]}, which begins as ownNotes does
      if (Buffer.byteLength(json) <= NOTIFY_BYTES)
        return unit.execute(INLINE, [`${ownNotes},"commit":`, `,"changes":${json}}`])
      return unit.execute(THROUGH_TABLE, [json, instance, 'false'])
    },
    bound(changes) {
      const keys: RecordKeys = changes.map(([collection, id, record]) => [collection, id, record === null ? 0 : 1])
      return [THROUGH_TABLE_SQL, [JSON.stringify(keys), instance, true]]
    },
  }
}

/**
 * The changes `keys` name, each written record as its table holds it now: a
 * later change to it is passed on again when its own notice comes. One
 * deleted since is left out: its deletion's notice follows.
 */
export async function readBack(keys: RecordKeys, sql: Sql): Promise<Change[]> {
  const ids = new Map<CollectionName, string[]>()
  for (const [collection, id, written] of keys)
    if (written === 1) ids.set(collection, [...(ids.get(collection) ?? []), id])
  const records = new Map<string, unknown>()
  for (const [collection, list] of ids) {
    const result = await sql.query<{id: string; doc: unknown}>(
      `SELECT id, doc FROM ${collection} WHERE id = ANY($1::text[])`,
      [list.map(text)],
    )
    for (const row of result.rows) records.set(`${collection}\u0000${untext(row.id)}`, row.doc)
  }
  const changes: Change[] = []
  for (const [collection, id, written] of keys) {
    const record = written === 1 ? records.get(`${collection}\u0000${id}`) : null
    if (record !== undefined) changes.push([collection, id, record] as Change)
  }
  return changes
}
