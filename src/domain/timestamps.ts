let lastMs = NaN
let lastIso = ''

/**
 * `ms` as an ISO timestamp (`2026-11-22T19:10:58.000Z`). Formatting a Date is
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
    lastIso = new Date(ms).toISOString()
  }
  return lastIso
}
