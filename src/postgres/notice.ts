import type {CollectionName} from '../domain/records.js'
import type {Change} from '../service/storage.js'
import {deletion} from '../service/unit-writes.js'
import {prepared} from './prepared.js'
import type {Sql} from './reader.js'
import {text, untext} from './text.js'
import {COLLECTIONS, COMMITS} from './schema.js'
import type {Notice} from './unit.js'

/** A notification's payload is at most 8000 bytes: larger changes go through the `changes` table. */
const NOTIFY_BYTES = 7000

/** A unit's notice on the channel `$3`, when its keys fit in a notification: `$1`, the commit number, `$2`. */
const INLINE = prepared(
  'tp_notice',
  `SELECT pg_notify($3, $1::text || n || $2::text), n AS commit FROM nextval('${COMMITS}') n`,
)

/** A unit's commit number alone, for an instance surely alone: its notification would reach nobody. */
const COMMIT_NUMBER = prepared('tp_commit_number', `SELECT nextval('${COMMITS}') AS commit`)

/** A notification sent after its unit committed: `$1`, the payload, on the channel `$2`. */
const LATE = `SELECT pg_notify($2, $1::text)`

/**
 * A unit's notice through the `changes` table, when its keys do not fit in one: `$1`, its keys; `$2`, the
 * instance; `$3`, the channel.
 */
const THROUGH_TABLE_SQL = `WITH row AS (INSERT INTO changes (changes) VALUES ($1::json) RETURNING seq)
  SELECT pg_notify($3, json_build_object('from', $2::text, 'seq', seq, 'commit', n, 'keys', true)::text),
    n AS commit FROM row, nextval('${COMMITS}') n`
const THROUGH_TABLE = prepared('tp_keys_notice', THROUGH_TABLE_SQL)

/**
 * An instance as its notices tell it: its id, and how its inline notifications begin (`{"from":"…"`, which it
 * tells from the others' without parsing them).
 */
export interface Teller {
  instance: string
  ownNotes: string
}

/** The teller of the instance `instance`. */
export const teller = (instance: string): Teller => ({
  instance,
  ownNotes: JSON.stringify({from: instance}).slice(0, -1),
})

/**
 * A unit's changes as the other instances are told of them: each record's
 * collection, id, and whether it was written (`1`) or deleted (`0`, with its
 * owner when the change names one), in order. An instance reads back the
 * written records it needs (`readBack`).
 */
export type RecordKeys = [collection: CollectionName, id: string, written: 0 | 1, owner?: string][]

/**
 * A notification as it comes: the keys inline (`changed`) or in the `changes` table (`seq`, with `keys`);
 * an instance of an earlier version sends the records themselves (`changes`, inline or at `seq`).
 */
export interface Note {
  from: string
  commit?: number
  changed?: RecordKeys
  seq?: number
  keys?: boolean
  changes?: Change[]
}

const KNOWN: ReadonlySet<unknown> = new Set(COLLECTIONS)

/** `[collection, id, third, owner?]` with a collection of tablepay's, as keys and an earlier version's changes are. */
const keyed = (entry: unknown, third: (value: unknown) => boolean): boolean =>
  Array.isArray(entry) &&
  KNOWN.has(entry[0]) &&
  typeof entry[1] === 'string' &&
  third(entry[2]) &&
  (entry[3] === undefined || typeof entry[3] === 'string')

/** Whether `keys` are records' keys as an instance tells them (`keysOf`). */
export const areKeys = (keys: unknown): keys is RecordKeys =>
  Array.isArray(keys) && keys.every((key) => keyed(key, (written) => written === 0 || written === 1))

/** Whether `changes` are changes as an instance of an earlier version tells them: a record, or null for a deletion. */
export const areChanges = (changes: unknown): changes is Change[] =>
  Array.isArray(changes) && changes.every((change) => keyed(change, (record) => typeof record === 'object'))

/**
 * The note a payload on the changes channel holds, or undefined when it is none an instance sends: any session
 * of the database may NOTIFY the channel, and a collection a note names goes into a statement (`readBack`).
 */
export function noteIn(payload: string): Note | undefined {
  let note: unknown
  try {
    note = JSON.parse(payload)
  } catch {
    return undefined
  }
  if (typeof note !== 'object' || note === null) return undefined
  const {from, commit, changed, seq, keys, changes} = note as Record<string, unknown>
  const fits =
    typeof from === 'string' &&
    (commit === undefined || typeof commit === 'number') &&
    (seq === undefined || Number.isSafeInteger(seq)) &&
    (keys === undefined || typeof keys === 'boolean') &&
    (changed === undefined || areKeys(changed)) &&
    (changes === undefined || areChanges(changes))
  return fits ? (note as Note) : undefined
}

/** Each change's collection, id and whether it was written, with a deletion's owner: what every notice tells. */
export function keysOf(changes: readonly Change[]): RecordKeys {
  return changes.map(([collection, id, record, owner]) =>
    record !== null ? [collection, id, 1] : owner === undefined ? [collection, id, 0] : [collection, id, 0, owner],
  )
}

/**
 * How an instance (`Teller`) tells the others of a unit's `changes` when it
 * commits: their keys only (`RecordKeys`), on its sandbox's `channel` (scope.ts), inline
 * when they fit in a notification, else through the `changes` table. A
 * notification's size and count cost PostgreSQL more than the rest of a
 * push's commit: an instance that needs a record reads it back (`readBack`,
 * docs/postgres.md "Changes reach the listeners in commit order"). The
 * statement draws the unit's commit number after its writes, so of two
 * units that write one record the later draws the higher, and answers with
 * it as `commit`. An instance surely `alone` draws the number and notifies
 * nobody; if another may have started by the time the unit committed, it
 * sends the notification then (`late`).
 */
export function notice(
  {instance, ownNotes}: Teller,
  channel: string,
  changes: readonly Change[],
  alone = false,
): Notice {
  const keys = JSON.stringify(keysOf(changes))
  const fits = Buffer.byteLength(keys) <= NOTIFY_BYTES
  // whether the unit's statement notifies nobody: a large unit's (`bound`) always notifies
  let silent = fits && alone
  let tabled = !fits
  return {
    get silent() {
      return silent
    },
    get tabled() {
      return tabled
    },
    inline(unit) {
      if (silent) return unit.execute(COMMIT_NUMBER, [])
      // {"from":…,"commit":n,"changed":[…]}, which begins as ownNotes does
      if (fits) return unit.execute(INLINE, [`${ownNotes},"commit":`, `,"changed":${keys}}`, channel])
      return unit.execute(THROUGH_TABLE, [keys, instance, channel])
    },
    bound() {
      silent = false
      tabled = true
      return [THROUGH_TABLE_SQL, [keys, instance, channel]]
    },
    late(commit) {
      return silent ? [LATE, [`${ownNotes},"commit":${commit},"changed":${keys}}`, channel]] : undefined
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
  for (const [collection, id, written, owner] of keys) {
    if (written === 0) {
      changes.push(deletion(collection, id, owner))
      continue
    }
    const record = records.get(`${collection}\u0000${id}`)
    if (record !== undefined) changes.push([collection, id, record] as Change)
  }
  return changes
}
