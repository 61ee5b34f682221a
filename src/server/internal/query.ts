import type {H3Event} from 'h3'
import * as z from 'zod'
import {validationError} from './body.js'
import {READABLE} from '../../domain/parse-messages.js'

/**
 * The URL's query parameters, a repeated one as a list. Every name is kept as
 * given: h3's `getQuery` drops `__proto__` and `constructor`, which the strict
 * schema must see to refuse them as it refuses any unknown parameter.
 */
export function queryOf(event: H3Event): Record<string, string | string[]> {
  const query = new Map<string, string | string[]>()
  for (const [name, value] of new URLSearchParams(event.path.split('?')[1] ?? '')) {
    const before = query.get(name)
    query.set(name, before === undefined ? value : [before, value].flat())
  }
  // own properties, `__proto__` included: fromEntries defines them rather than assigning
  return Object.fromEntries(query)
}

const NO_QUERY = z.strictObject({})

/**
 * Refuses any query parameter, for a route that takes none: a 422 naming
 * it, as a list refuses one it does not know. One rule for every route
 * (docs/api.md, "Requests").
 *
 * @example
 * refuseQuery(event) // GET /v1/checks/chk_1?foo=1 → 422 validation_failed, details [{path: 'foo'}]
 */
export function refuseQuery(event: H3Event): void {
  if (!event.path.includes('?')) return
  const result = NO_QUERY.safeParse(queryOf(event), READABLE)
  if (!result.success) throw validationError('Query', result.error)
}
