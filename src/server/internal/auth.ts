import type {H3Event} from 'h3'
import {ApiError} from '../../domain/errors.js'
import type {ApiKeyRecord} from '../../domain/records.js'
import type {Scope} from '../../domain/schemas.js'
import type {Records} from '../../service/records.js'
import {ROUTES} from '../../domain/routes.js'
import {requestHeader} from './headers.js'
import {pathOf, withoutTrailingSlash} from './request-path.js'
import {patternOf, routerPath} from './route-table.js'

const BEARER = /^Bearer\s+(\S+)\s*$/i

/** GET, HEAD and OPTIONS only read; anything else changes state and needs `write` (docs/api.md, "Routes"). */
const READS = new Set(['GET', 'HEAD', 'OPTIONS'])
const scopeFor = (method: string): Scope => (READS.has(method) ? 'read' : 'write')

/** The reads that need `write` (ROUTES): their answers hold signing secrets, which a read key never sees. */
const SECRET_READS = Object.values(ROUTES)
  .filter((route) => route.method === 'GET' && route.scope === 'write')
  .map((route) => patternOf(routerPath(route.path)))
const readsSecrets = (method: string, path: string) =>
  (method === 'GET' || method === 'HEAD') && SECRET_READS.some((pattern) => pattern.test(withoutTrailingSlash(path)))

/**
 * Finds the account behind the bearer key and checks the scope the method
 * needs, and `write` for a read of secrets. Sets `event.context.accountId`. A method no route takes at the path
 * needs no scope: the router answers it 404 or 405, which say what a key
 * with more scopes would not change (`routed` is asked only then).
 */
export async function authenticate(
  event: H3Event,
  records: Records,
  routed: (method: string, path: string) => boolean,
): Promise<void> {
  const header = requestHeader(event, 'authorization')
  if (!header) {
    throw new ApiError(
      'unauthenticated',
      'Missing API key. Send the header "Authorization: Bearer tp_test_…"; `tablepay serve` prints the keys.',
    )
  }
  const key = BEARER.exec(header)?.[1]
  const record = key ? await records.get('api_keys', key) : undefined
  if (!record)
    throw new ApiError(
      'unauthenticated',
      'Unknown API key. Use a key printed by `tablepay serve` or listed in your --seed file.',
    )
  // a refusal for scope is still this account's request: the request log keeps it
  event.context.keyAccountId = record.account_id
  const needed = scopeFor(event.method)
  if (!record.scopes.includes(needed) && routed(event.method, pathOf(event)))
    throw lacksScope(needed, `${event.method} needs`)
  // checked only for a key without `write`: a push's key pays nothing for it
  if (!record.scopes.includes('write') && readsSecrets(event.method, pathOf(event)))
    throw lacksScope('write', 'this read needs: its answer holds webhook signing secrets')
  event.context.accountId = record.account_id
  event.context.apiKey = record
  // a scratch account's requests count against the rate limit of the account that made its line
  event.context.limitedAs = record.limited_as ?? record.account_id
}

function lacksScope(needed: Scope, what: string): ApiError {
  return new ApiError(
    'insufficient_scope',
    `This API key lacks the "${needed}" scope that ${what}; use a key with "${needed}".`,
    [{path: 'authorization', message: `requires scope ${needed}`}],
  )
}

// a route runs only once `authenticate` let its request through: what it set is there

/** The caller's API key record; set by `authenticate`. */
export const apiKeyOf = (event: H3Event): ApiKeyRecord => event.context.apiKey!

/** The account the request acts for; set by `authenticate`. */
export const accountOf = (event: H3Event): string => event.context.accountId!
