/**
 * The journal's short form for a run of records that differ in few fields:
 * a push to 100 endpoints stores 100 deliveries that share all but their
 * id and endpoint. Written as one `[collection, template, varying, rows]`
 * (docs/storage.md "Files"), it costs a sixth of the bytes of 100 full
 * records, and of their JSON work and checksum, and replays into the same
 * records.
 */

import {type Fields, isFields, portable} from './json-values.js'
import type {JournalChange} from './journal-changes.js'

/** Fewer puts in a row than this (one collection, the same fields in the same order) are written as they are. */
const MIN_RUN = 4

/** Whether `record` has exactly `keys`, in that order, each with a portable value. */
function sameShape(record: unknown, keys: readonly string[]): record is Fields {
  if (!isFields(record)) return false
  // for-in, not Object.keys: no array made per record (records are plain objects, nothing inherited is enumerable)
  let n = 0
  for (const key in record) if (key !== keys[n++] || !portable(record[key])) return false
  return n === keys.length
}

/** The end (exclusive) of the run of puts from `from` that one template holds, each stored under its `idKey` field. */
function runEnd(changes: readonly JournalChange[], from: number, keys: readonly string[], idKey: string): number {
  const collection = changes[from]![0]
  let end = from
  for (; end < changes.length; end++) {
    const [name, id, record] = changes[end]!
    if (name !== collection || !sameShape(record, keys) || record[idKey] !== id) break
  }
  return end
}

/** `[collection, template, varying, rows]`: each row holds the values of the `varying` fields, the id field first. */
function encodeRun(
  changes: readonly JournalChange[],
  from: number,
  end: number,
  keys: readonly string[],
  idKey: string,
): unknown[] {
  const template = changes[from]![2] as Fields
  const varying = [idKey]
  for (const key of keys) {
    if (key === idKey) continue
    const value = template[key]
    for (let i = from + 1; i < end; i++) {
      if ((changes[i]![2] as Fields)[key] !== value) {
        varying.push(key)
        break
      }
    }
  }
  const rows: unknown[][] = []
  for (let i = from; i < end; i++) {
    const record = changes[i]![2] as Fields
    const row: unknown[] = []
    for (const key of varying) row.push(record[key])
    rows.push(row)
  }
  return [changes[from]![0], template, varying, rows]
}

/** The changes with each run of alike records as one item, the rest as they are. */
export function encodeRuns(changes: readonly JournalChange[]): readonly unknown[] {
  if (changes.length < MIN_RUN) return changes
  const encoded: unknown[] = []
  for (let i = 0; i < changes.length;) {
    const [, id, record] = changes[i]!
    const keys = isFields(record) ? Object.keys(record) : []
    const idKey = keys.find((key) => (record as Fields)[key] === id)
    const end = Math.max(i + 1, idKey === undefined ? i : runEnd(changes, i, keys, idKey))
    if (end - i >= MIN_RUN) encoded.push(encodeRun(changes, i, end, keys, idKey!))
    else for (let j = i; j < end; j++) encoded.push(changes[j])
    i = end
  }
  return encoded
}

type Run = [collection: string, template: Fields, varying: string[], rows: unknown[][]]

export function isRun(c: unknown): c is Run {
  if (!Array.isArray(c) || c.length !== 4 || typeof c[0] !== 'string' || !isFields(c[1])) return false
  const [, template, varying, rows] = c as [string, Fields, unknown, unknown]
  if (!Array.isArray(varying) || varying.length === 0) return false
  if (!varying.every((key) => typeof key === 'string' && Object.hasOwn(template, key))) return false
  const fits = (row: unknown) => Array.isArray(row) && row.length === varying.length && typeof row[0] === 'string'
  return Array.isArray(rows) && rows.every(fits)
}

/** The puts a run was written from: the same records, with the same fields in the same order. */
export function decodeRun([collection, template, varying, rows]: Run): JournalChange[] {
  const keys = Object.keys(template)
  const at = keys.map((key) => varying.indexOf(key))
  // fromEntries, not assignment: a "__proto__" field stays a field
  return rows.map((row) => [
    collection,
    row[0] as string,
    Object.fromEntries(keys.map((key, k) => [key, at[k]! >= 0 ? row[at[k]!] : template[key]])),
  ])
}
