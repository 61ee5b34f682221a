import * as z from 'zod'
import {ERROR_STATUS, type ErrorCode} from '../domain/errors.js'
import {faultable, OPERATIONS, type Operation, pathParams} from './operations.js'

// The document's error answers (docs/api.md, "The OpenAPI document"): what each code means, which
// codes each operation answers by status, and the answers and headers they share as components.

/** What each error code means, for the descriptions of error answers; a test checks every code has one. */
export const ERROR_MEANINGS: Partial<Record<ErrorCode, string>> = {
  invalid_json: 'the body is not JSON',
  unauthenticated: 'no `Authorization: Bearer …`, or an unknown key',
  insufficient_scope: 'the key lacks the scope the route needs',
  not_found: "no such resource in this account (another account's resources too), or no such route",
  method_not_allowed: 'the route does not take this method',
  payment_declined: 'the simulated card declined (`simulate: "decline"`); nothing changed',
  conflict_with_paid_items: 'the push would take away claimed items; `details` names them',
  version_conflict: 'same `version` as stored, different content',
  item_unavailable: 'a claim for more than is left',
  check_not_open: 'the check is closed or voided',
  payload_too_large:
    'body over 1 MiB (an import: 256 MiB, or too large once parsed); a snapshot too long to write or read (docs/snapshots.md)',
  unsupported_media_type: 'not `Content-Type: application/json`',
  unsupported_content_encoding: 'a `Content-Encoding` other than gzip, deflate or br',
  validation_failed: 'the body, a query or a path parameter breaks the schema; `details` lists `{path, message}`',
  amount_exceeds_balance: 'more than is due (payment) or left to refund (refund)',
  idempotency_key_reused: 'this `Idempotency-Key` came with another request',
  event_type_not_subscribed: 'the endpoint does not take the event type',
  endpoint_disabled: 'the endpoint is disabled: nothing is delivered to it',
  rate_limited:
    'too many live streams open at once from this address (`/sim/stream`), or of this check (the table page), with `Retry-After: 1`; over `serve --rate-limit` (with `Retry-After`); or a fault of `POST /sim/faults` with status 429',
  simulated_fault:
    'a fault of `POST /sim/faults` asked for this answer (`X-Tablepay-Fault` names it); nothing changed unless it was made with `after: true`',
  internal_error: 'a bug in the simulator; never expected, please report it with the request id',
  storage_unavailable:
    'the data dir could not be written (until a restart), the database is out of reach (until it is back), or a record the request needs stayed locked by another session for 20 s',
  starting: 'the server is still starting; send the request again after `Retry-After` seconds',
  limit_reached: 'the account has as many of these as it may (`details` names the limit); delete some first',
  malformed_request:
    "Node's HTTP parser cannot read the request (a control character in a header, two `Content-Length`s), or it has no `Host`, two, or two `Authorization`s",
  request_timeout: 'no whole request head within 60 s, or no whole request within 120 s',
  expectation_failed: 'an `Expect` other than `100-continue`, or naming another expectation beside it',
  headers_too_large: 'a request head over 16 KiB',
}

/** The error codes a route can answer with: those of its shape, then its own. */
export function errorCodesOf(op: Operation): ErrorCode[] {
  return [...new Set([...shapeCodesOf(op), ...(op.errors ?? [])])]
}

/** The error codes every route of the operation's shape can answer with (its scope, path, method, key). */
export function shapeCodesOf(op: Operation): ErrorCode[] {
  // every route refuses a query parameter it does not take (internal/query.ts)
  const codes: ErrorCode[] = ['validation_failed']
  if (op.scope) codes.push('unauthenticated')
  if (op.scope === 'write') codes.push('insufficient_scope')
  const params = pathParams(op.path)
  if (params.length > 0) codes.push('not_found')
  // every write reads its body, one that takes none too (NoBody): none or `{}`
  if (op.method !== 'get')
    codes.push('invalid_json', 'payload_too_large', 'unsupported_media_type', 'unsupported_content_encoding')
  if (op.idempotent) codes.push('idempotency_key_reused')
  return codes
}

const ErrorDetail = z.object({path: z.string(), message: z.string(), external_id: z.string().optional()})

/** Every error's body, `#/components/schemas/Error`; each error answer narrows its `code` to its own. */
export const ErrorBody = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    request_id: z.string(),
    details: z.array(ErrorDetail).optional(),
  }),
})

/** The error body with its codes narrowed: beside `$ref`, as OpenAPI 3.1's schemas allow, which keeps the document small. */
const errorSchema = (codes: ErrorCode[]) => ({
  $ref: '#/components/schemas/Error',
  properties: {error: {properties: {code: {enum: codes}}}},
})

const text = (description: string) => ({description, schema: {type: 'string'}})

/** The response headers the document names once, under `#/components/headers`. */
export const HEADERS = {
  RequestId: text('Identifies the request for support tracing'),
  WWWAuthenticate: text('Always `Bearer realm="tablepay"`'),
  Allow: text('The methods the path takes, e.g. `GET, HEAD`'),
  RetryAfter: {
    description: 'Seconds to wait before sending again: on 429, a 503 fault, and `starting`',
    schema: {type: 'string', pattern: '^[0-9]+$'},
  },
  // any answer of an API route may carry these, an error too: declared on its success and fault answers only,
  // which keeps the document within its size (docs/api.md, "The OpenAPI document")
  TablepayFault: text('The id of the fault (`flt_…`) that gave or delayed this answer, whatever its status'),
  RateLimitLimit: text(
    'Requests a second this API key may make (`serve --rate-limit`): on every answer of the route, whatever its status',
  ),
  RateLimitRemaining: text('Requests left in the current second'),
  ServerTiming: text('With a delay fault: `fault;dur=<ms>`, how long the answer was held, whatever its status'),
  IdempotentReplayed: {
    description: '`true` when this is the stored answer to an earlier request with the same `Idempotency-Key`',
    schema: {type: 'string', enum: ['true']},
  },
}
export const header = (name: keyof typeof HEADERS) => ({$ref: `#/components/headers/${name}`})

/** What a fault or the rate limit adds to an answer of an API route (docs/api.md, "Faults and rate limits"). */
export const FAULT_HEADERS = {
  'X-Tablepay-Fault': header('TablepayFault'),
  'Server-Timing': header('ServerTiming'),
  'X-RateLimit-Limit': header('RateLimitLimit'),
  'X-RateLimit-Remaining': header('RateLimitRemaining'),
}

function errorHeaders(codes: ErrorCode[]): Record<string, unknown> {
  const headers: Record<string, unknown> = {'X-Request-Id': header('RequestId')}
  if (codes.includes('unauthenticated')) headers['WWW-Authenticate'] = header('WWWAuthenticate')
  if (codes.includes('method_not_allowed')) headers.Allow = header('Allow')
  if (codes.includes('simulated_fault') || codes.includes('rate_limited'))
    Object.assign(headers, {'Retry-After': header('RetryAfter'), ...FAULT_HEADERS})
  else if (codes.includes('starting')) headers['Retry-After'] = header('RetryAfter')
  return headers
}

/** An error answer for exactly these codes; an answer to HEAD has no body. */
function errorResponse(codes: ErrorCode[], head: boolean) {
  return {
    // a HEAD's answer points to its GET's, which says what each code means
    description: head
      ? `\`${errorAnswerName(codes, false)}\` without its body.`
      : codes.map((code) => `\`${code}\`: ${ERROR_MEANINGS[code] ?? code}`).join('; '),
    headers: errorHeaders(codes),
    ...(head ? {} : {content: {'application/json': {schema: errorSchema(codes)}}}),
  }
}

/** `starting_after` → `StartingAfter`. */
export const pascal = (name: string) => name.replace(/(?:^|_)(\w)/g, (_, letter: string) => letter.toUpperCase())

/**
 * The name of the shared error answer for exactly these codes, under
 * `#/components/responses`: `['validation_failed', 'limit_reached']` is
 * `ValidationFailedOrLimitReached`, and `…Head` its answer to HEAD.
 */
export const errorAnswerName = (codes: ErrorCode[], head: boolean) =>
  codes.map(pascal).join('Or') + (head ? 'Head' : '')

/**
 * Answers with no operation: an unknown route (404), a method the path does not take (405), and what Node's
 * HTTP parser answers before any route (server/internal/client-errors.ts).
 */
const UNROUTED: ErrorCode[][] = [
  ['not_found'],
  ['method_not_allowed'],
  ['malformed_request'],
  ['request_timeout'],
  ['expectation_failed'],
  ['headers_too_large'],
]

/** Any route can fail these ways: a bug, a data dir that could no longer be written, a server still starting. */
const ALWAYS: ErrorCode[] = ['internal_error', 'storage_unavailable', 'starting']

/** The error codes an operation can answer, by status, lowest first. */
export function errorsByStatus(op: Operation): [number, ErrorCode[]][] {
  const byStatus = new Map<number, ErrorCode[]>()
  for (const code of [...errorCodesOf(op), ...ALWAYS]) {
    byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code])
  }
  if (faultable(op)) addFaultAnswers(byStatus)
  return [...byStatus].sort(([a], [b]) => a - b)
}

/** Every shared error answer the operations use, with those of `UNROUTED`. */
export function errorComponents(): Record<string, unknown> {
  const components: Record<string, unknown> = {}
  const add = (codes: ErrorCode[], head: boolean) =>
    (components[errorAnswerName(codes, head)] ??= errorResponse(codes, head))
  for (const codes of UNROUTED) add(codes, false)
  for (const op of OPERATIONS) {
    for (const [, codes] of errorsByStatus(op)) {
      add(codes, false)
      if (op.method === 'get') add(codes, true)
    }
  }
  return components
}

// --- faults and the rate limit (docs/api.md, "Faults and rate limits")

/** What a fault of `POST /sim/faults` or `serve --rate-limit` can answer on an API route, besides its own answers. */
function addFaultAnswers(byStatus: Map<number, ErrorCode[]>): void {
  const add = (status: number, code: ErrorCode) => {
    const codes = byStatus.get(status) ?? []
    if (!codes.includes(code)) byStatus.set(status, [...codes, code])
  }
  add(429, 'rate_limited')
  for (const status of [500, 502, 503, 504]) add(status, 'simulated_fault')
}
