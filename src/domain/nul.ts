/**
 * What a webhook endpoint's, a delivery's or a payment's record may not hold: PostgreSQL's JSON functions
 * refuse a record with a NUL anywhere in it, and the claims and the units that fan out query the first two
 * kinds of record with them, a snapshot's save the payments' refunds (docs/api.md, "HTTP details").
 */
export const NUL_RULE = 'must not contain the NUL character (\\u0000)'

/** Whether `value` holds no NUL. */
export const noNul = (value: string): boolean => !value.includes('\0')

/**
 * The path of the first key or string in `value` that holds a NUL, or undefined.
 *
 * @example
 * nulAt({attempts: [{response_body: 'a\u0000b'}]}) // ['attempts', 0, 'response_body']
 */
export function nulAt(value: unknown, path: (string | number)[] = []): (string | number)[] | undefined {
  if (typeof value === 'string') return noNul(value) ? undefined : path
  if (typeof value !== 'object' || value === null) return undefined
  for (const [key, item] of Object.entries(value)) {
    const at = [...path, Array.isArray(value) ? Number(key) : key]
    const found = noNul(key) ? nulAt(item, at) : at
    if (found) return found
  }
  return undefined
}
