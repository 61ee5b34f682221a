import type pg from 'pg'
import {refuseTooLong} from '../domain/json-memory.js'
import type {CollectionName} from '../domain/records.js'
import type {Change} from '../service/storage.js'
import {literal} from './literal.js'
import {text} from './text.js'
import {COLUMNS} from './schema.js'
import {snapshotHead} from './snapshots.js'

/**
 * A unit whose records' JSON passes this many bytes is large (a snapshot's
 * save or restore): its writes go as statements of the extended protocol,
 * their values bound as parameters, one round trip each, instead of literals
 * in one simple query. Escaping megabytes of JSON into SQL text, and
 * PostgreSQL parsing it back, cost far more than the round trips
 * (docs/postgres.md, "Large units").
 */
export const LARGE_BYTES = 64 * 1024

/** The JSON of each record a unit writes, made once for its statements and its notice. */
export class RecordTexts {
  readonly #texts = new Map<unknown, string>()
  /** The JSON's length so far, in characters. */
  length = 0

  of(record: unknown): string {
    let json = this.#texts.get(record)
    if (json === undefined) {
      json = JSON.stringify(record)
      // read back, a longer one would end the process in node-postgres (json-memory.ts)
      refuseTooLong(json)
      this.#texts.set(record, json)
      this.length += json.length
    }
    return json
  }
}

/**
 * Deletes `ids` from `collection`, keeping their places for list cursors (docs/api.md, "Lists"); with `places`
 * false, for records the unit puts back (a restore's), which have places of their own again: a restore of
 * 1,000 checks over the records it put back went from 314–316 to 228–249 ms (docs/postgres.md, "Snapshots").
 */
export function deleteStatement(collection: CollectionName, ids: readonly string[], places = true): string {
  const gone = `DELETE FROM ${collection} WHERE id = ANY(${literal(ids.map(text))}::text[])`
  return places ? keepingPlaces(gone, literal(collection)) : gone
}

/** Deletes `ids`, their values bound, as `deleteStatement` does: for a large unit. */
export function boundDelete(collection: CollectionName, ids: readonly string[], places = true): pg.QueryConfig {
  const gone = `DELETE FROM ${collection} WHERE id = ANY($1::text[])`
  return places
    ? {text: keepingPlaces(gone, '$2::text'), values: [ids.map(text), collection]}
    : {text: gone, values: [ids.map(text)]}
}

/** `remove` (a DELETE of `collection`), keeping the places of what it deletes, and their accounts. */
const keepingPlaces = (remove: string, collection: string) => `WITH gone AS (${remove} RETURNING id, account_id, seq)
  INSERT INTO deleted (collection, id, account_id, seq) SELECT ${collection}, id, account_id, seq FROM gone
  ON CONFLICT (collection, id) DO UPDATE SET account_id = excluded.account_id, seq = excluded.seq`

/**
 * One statement for all the puts of a collection, in their order, their values bound: the records as one
 * JSON array, which `json_array_elements` splits keeping each record's text, the other columns as arrays.
 */
export function boundInsert(
  collection: CollectionName,
  changes: readonly Change[],
  texts: RecordTexts,
  upsert: boolean,
): pg.QueryConfig {
  const names = ['id', 'account_id', 'doc', ...COLUMNS[collection]]
  const rows = changes.map((change) => rowValues(change, texts))
  const values = names.map((name, i) => {
    const column = rows.map((row) => row[i])
    return name === 'doc' ? `[${column.join(',')}]` : column
  })
  const sources = names.map((name, i) =>
    name === 'doc' ? `json_array_elements($${i + 1}::json)` : `unnest($${i + 1}::text[])`,
  )
  return {
    text: `INSERT INTO ${collection} (${names.join(', ')}) SELECT ${names.join(', ')}
      FROM ROWS FROM (${sources.join(', ')}) WITH ORDINALITY AS r(${names.join(', ')}, n) ORDER BY n
      ${upsert ? onConflict(names) : ''}`,
    values,
  }
}

/** A record's row as its table's columns: `id`, `account_id`, `doc`, then its collection's `COLUMNS`. */
export function rowValues([collection, id, record]: Change, texts: RecordTexts): (string | null)[] {
  const row = record as Record<string, unknown>
  const values: (string | null)[] = [text(id), text(row.account_id as string), texts.of(row)]
  for (const column of COLUMNS[collection]) {
    // a snapshot's head is JSON, stored as it is; a field's value is escaped as ids are
    if (collection === 'snapshots') values.push(snapshotHead(values[2]!))
    else values.push(row[column] === undefined || row[column] === null ? null : text(String(row[column])))
  }
  return values
}

/** What an upsert of the columns `names` (`id` first) sets when the record is there already. */
export function onConflict(names: readonly string[]): string {
  const set = names.slice(1).map((name) => `${name} = excluded.${name}`)
  return ` ON CONFLICT (id) DO UPDATE SET ${set.join(', ')}`
}
