import {createHash} from 'node:crypto'
import {type H3Event, setResponseHeader, setResponseStatus} from 'h3'
import {IDEMPOTENCY_KEY, IDEMPOTENCY_KEY_RULE} from '../../domain/constants.js'
import {invalidField} from '../../domain/errors.js'
import type {Answer, IdempotentRequest} from '../../service/index.js'
import {requestHeader} from './headers.js'
import {pathOf, withoutTrailingSlash} from './request-path.js'

/** The `Idempotency-Key` header, if any: 1–255 printable ASCII characters. */
function readKey(event: H3Event): string | undefined {
  const key = requestHeader(event, 'idempotency-key')
  if (key === undefined) return undefined
  if (!IDEMPOTENCY_KEY.test(key)) throw invalidField('Idempotency-Key', IDEMPOTENCY_KEY_RULE)
  return key
}

/**
 * Equal for the same method, path and body: `body` is the validated input, whose keys come in schema order.
 * The path is the one routed (decoded once, without a trailing slash): spellings of one route are one request.
 */
function requestHash(event: H3Event, body: unknown): string {
  const path = withoutTrailingSlash(pathOf(event))
  return createHash('sha256')
    .update(`${event.method} ${path}\n${JSON.stringify(body)}`)
    .digest('hex')
}

/**
 * The request's `Idempotency-Key` with what the service needs to honour it
 * (docs/api.md, Idempotency-Key): undefined without a key.
 *
 * @example
 * const answer = await service.guests.claim(check, input, idempotentRequest(event, input))
 */
export function idempotentRequest(event: H3Event, input: unknown): IdempotentRequest | undefined {
  const key = readKey(event)
  if (key === undefined) return undefined
  // keys are the caller's own: a table link's never meet the API key's, so a guest can neither block nor probe the restaurant's
  const scope = event.context.guestCheckId ? `link:${event.context.guestCheckId}` : 'api'
  return {key, scope, hash: requestHash(event, input)}
}

/** Sends what the service answered: its status, and `Idempotent-Replayed: true` on a replay. */
export function sendAnswer<T>(event: H3Event, {status, body, replayed}: Answer<T>): T {
  if (replayed) setResponseHeader(event, 'idempotent-replayed', 'true')
  setResponseStatus(event, status)
  return body
}
