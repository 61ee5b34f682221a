/**
 * The last time a timestamp names: past it, ISO 8601 needs a year of more than four digits, which PostgreSQL's
 * timestamptz does not read. A scheduler clock advanced or sped up past it reads as it (docs/api.md, "Webhooks").
 */
export const LAST_TIME = Date.parse('9999-12-31T23:59:59.999Z')

/**
 * The most the scheduler clock is advanced, in ms, and the most a snapshot's `clock_offset_ms` may be: the
 * clock reads as LAST_TIME long before it, and an offset the server exports must import again.
 */
export const MAX_CLOCK_OFFSET_MS = Number.MAX_SAFE_INTEGER

let lastMs = NaN
let lastIso = ''

/**
 * `ms` as an ISO timestamp (`2026-11-22T19:10:58.000Z`), LAST_TIME for any later. Formatting a Date is
 * a measurable share of a push, and a busy server formats the same
 * millisecond many times (a push's `created_at`, its deliveries' due time):
 * the last one is kept.
 *
 * @example
 * isoTime(0) // '1970-01-01T00:00:00.000Z'
 */
export function isoTime(ms: number): string {
  if (ms !== lastMs) {
    lastMs = ms
    lastIso = new Date(Math.min(ms, LAST_TIME)).toISOString()
  }
  return lastIso
}
