import {RecentMap} from './recent-map.js'

/** How many values keep their JSON text: well above the requests a server has under way at once. */
export const KEPT = 4096

/** The text of the values serialized last. */
const recent = new RecentMap<object, string>(KEPT)

/**
 * `JSON.stringify(value)`, made once for a value that is serialized again
 * soon after: a push's check resource is the `data` of its events, written
 * in the journal line, then sent as the answer (docs/benchmarks.md, "Where
 * the time goes now"). Only the most recent values keep their text, so this
 * holds no memory that grows with the data; a value must not change once
 * serialized, as no record or resource does.
 *
 * @example
 * jsonText(resource) === JSON.stringify(resource) // true, and the second call serializes nothing
 */
export function jsonText(value: object): string {
  let text = recent.get(value)
  if (text === undefined) recent.set(value, (text = JSON.stringify(value)))
  return text
}

/**
 * The JSON of a record, byte for byte `JSON.stringify(record)`, with its
 * `data` object (an event's resource) taken from `jsonText`: an event's
 * envelope is then serialized without serializing its resource again.
 *
 * @example
 * recordJson(event) === JSON.stringify(event) // true
 */
export function recordJson(record: object): string {
  const fields = record as Record<string, unknown>
  const data = fields.data
  if (typeof data !== 'object' || data === null) return JSON.stringify(record)
  let text = '{'
  for (const key in fields) {
    const value = fields[key]
    // what JSON.stringify leaves out of an object
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue
    if (text.length > 1) text += ','
    text += `${JSON.stringify(key)}:${value === data ? jsonText(data) : JSON.stringify(value)}`
  }
  return `${text}}`
}
