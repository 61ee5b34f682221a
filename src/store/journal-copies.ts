/**
 * The journal's short form for a record that repeats the `data` of another
 * in the same line: a push stores its check and an event whose data is that
 * check's resource, which shares all but a few of the record's fields. Written
 * as `[collection, id, source, fields]` (docs/storage.md "Files"): `source` is
 * the index, in the line, of the put whose record's `data` holds the shared
 * values, and `fields` names the record's fields in order, each either a key
 * (its value is the data's) or `[key, value]` (its own). A push's line is then
 * a third shorter, and the check is serialized once, as the resource its
 * answer sends, not a second time as a record.
 */

import {type Fields, isFields, portable} from './json-values.js'

/** `[collection, id, source, fields]`. */
export type Copy = [collection: string, id: string, source: number, fields: (string | [string, unknown])[]]

/** The `data` of a plain put `[collection, id, record]`, when its record has one that is an object. */
export function dataOf(item: unknown): Fields | undefined {
  if (!Array.isArray(item) || item.length !== 3 || !isFields(item[2])) return undefined
  const data = (item[2] as Fields).data
  return isFields(data) ? data : undefined
}

/**
 * `record` as the fields of a copy of `data`, or undefined when it shares
 * too little of it to be worth one. A field is shared only when it is the
 * very same value (a nested object too: a resource rendered from a record
 * shares its parts), so the copy replays into the same JSON.
 */
function fieldsOf(record: Fields, data: Fields): Copy[3] | undefined {
  const fields: Copy[3] = []
  let shared = 0
  for (const key in record) {
    const value = record[key]
    if (Object.hasOwn(data, key) && data[key] === value && portable(value)) {
      fields.push(key)
      shared++
    } else if (portable(value)) {
      fields.push([key, value])
    } else if (value !== undefined) {
      // a function or a symbol: written as nothing, or as null in an array; left to the plain form
      return undefined
    }
  }
  return shared * 2 > fields.length ? fields : undefined
}

/**
 * The items with each plain put that repeats the `data` (with its own id) of
 * another plain put in the same line written as a copy of it. Only the items
 * changed are new: `items` is not modified.
 */
export function encodeCopies(items: readonly unknown[]): readonly unknown[] {
  let sources: Map<unknown, number> | undefined
  for (let i = 0; i < items.length; i++) {
    const data = dataOf(items[i])
    if (data && typeof data.id === 'string') (sources ??= new Map()).set(data.id, i)
  }
  if (!sources) return items
  let encoded: unknown[] | undefined
  for (let i = 0; i < items.length; i++) {
    const item = items[i]
    if (!Array.isArray(item) || item.length !== 3 || !isFields(item[2]) || dataOf(item)) continue
    const [collection, id, record] = item as [string, string, Fields]
    const source = sources.get(id)
    if (source === undefined) continue
    const fields = fieldsOf(record, dataOf(items[source])!)
    if (!fields) continue
    encoded ??= [...items]
    encoded[i] = [collection, id, source, fields] satisfies Copy
  }
  return encoded ?? items
}

/** Whether `body` is a copy's `[source, fields]`. */
export function isCopyBody(body: unknown): body is [source: number, fields: Copy[3]] {
  if (!Array.isArray(body) || body.length !== 2 || !Number.isInteger(body[0]) || !Array.isArray(body[1])) return false
  const fits = (field: unknown) =>
    typeof field === 'string' || (Array.isArray(field) && field.length === 2 && typeof field[0] === 'string')
  return (body[1] as unknown[]).every(fits)
}

export function isCopy(item: unknown): item is Copy {
  if (!Array.isArray(item) || item.length !== 4) return false
  const [collection, id, source, fields] = item as unknown[]
  return typeof collection === 'string' && typeof id === 'string' && isCopyBody([source, fields])
}

/**
 * The record a copy was written from, field for field and in the same
 * order, or undefined when `data`, its source's, lacks a field the copy
 * takes from it.
 */
export function decodeCopy(fields: Copy[3], data: Fields): Fields | undefined {
  const record: Fields = {}
  for (const field of fields) {
    const own = typeof field !== 'string'
    const key = own ? field[0] : field
    if (!own && !Object.hasOwn(data, key)) return undefined
    const value = own ? field[1] : data[key]
    // defined, not assigned: a "__proto__" field stays a field
    if (key === '__proto__')
      Object.defineProperty(record, key, {value, enumerable: true, writable: true, configurable: true})
    else record[key] = value
  }
  return record
}
