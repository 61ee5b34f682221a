/**
 * What a webhook endpoint's, a delivery's or a payment's record may not hold: PostgreSQL's JSON functions
 * refuse a record with a NUL or an unpaired surrogate anywhere in it (`\u0000`, or `\ud800` without its pair, as
 * JSON.stringify writes them), and the claims and the units that fan out query the first two kinds of record
 * with them, a snapshot's save the payments' refunds (docs/api.md, "HTTP details").
 */
export const QUERYABLE_RULE = 'must not contain the NUL character (\\u0000) or an unpaired surrogate (\\ud800-\\udfff)'

/** A NUL, a high surrogate not followed by a low one, or a low one not preceded by a high one. */
const UNQUERYABLE = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** Whether PostgreSQL's JSON functions read `value` in a record. */
export const queryable = (value: string): boolean => !UNQUERYABLE.test(value)

/**
 * The path of the first key or string in `value` that is not `queryable`, or undefined.
 *
 * @example
 * unqueryableAt({attempts: [{response_body: 'a\u0000b'}]}) // ['attempts', 0, 'response_body']
 */
export function unqueryableAt(value: unknown, path: (string | number)[] = []): (string | number)[] | undefined {
  if (typeof value === 'string') return queryable(value) ? undefined : path
  if (typeof value !== 'object' || value === null) return undefined
  for (const [key, item] of Object.entries(value)) {
    const at = [...path, Array.isArray(value) ? Number(key) : key]
    const found = queryable(key) ? unqueryableAt(item, at) : at
    if (found) return found
  }
  return undefined
}
