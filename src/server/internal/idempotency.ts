import {createHash} from 'node:crypto'
import {getRequestPath, type H3Event, setResponseHeader, setResponseStatus} from 'h3'
import {ApiError, invalidField} from '../../domain/errors.js'
import type {IdempotencyRecord} from '../../domain/records.js'
import {type Change, put} from '../../store/store.js'
import type {AppContext} from '../context.js'
import {requestHeader} from './headers.js'

const KEY = /^[\x21-\x7e]{1,255}$/

/** What a guest action decided: the answer and the changes that make it true. */
export interface Answer<T> {
  status: number
  body: T
  changes: Change[]
}

/** The `Idempotency-Key` header, if any: 1–255 printable ASCII characters. */
function readKey(event: H3Event): string | undefined {
  const key = requestHeader(event, 'idempotency-key')
  if (key === undefined) return undefined
  if (!KEY.test(key)) throw invalidField('Idempotency-Key', 'must be 1-255 printable ASCII characters without spaces')
  return key
}

/** Equal for the same method, path and body: `body` is the validated input, whose keys come in schema order. */
function requestHash(event: H3Event, body: unknown): string {
  const path = getRequestPath(event).split('?')[0]
  return createHash('sha256').update(`${event.method} ${path}\n${JSON.stringify(body)}`).digest('hex')
}

async function respond<T>(app: AppContext, event: H3Event, {status, body, changes}: Answer<T>): Promise<T> {
  await app.store.commit(changes)
  setResponseStatus(event, status)
  return body
}

/**
 * Runs `decide` and commits its changes, at most once per `Idempotency-Key`
 * of the account: a replay (same key, same method, path and body) gets the
 * stored answer with its status and `Idempotent-Replayed: true`; the same key
 * with another request is a 422. Only successes are stored: a refusal
 * changed nothing, so retrying it runs again.
 *
 * `decide` must be synchronous: looking the key up, deciding and applying the
 * changes in memory then happen in one step, so concurrent requests (with or
 * without a key) cannot interleave between reading the state and changing it.
 *
 * @example
 * return idempotent(app, event, check.account_id, input, () => ({status: 201, body: render(x), changes: [put('x', x.id, x)]}))
 */
export function idempotent<T>(app: AppContext, event: H3Event, accountId: string, input: unknown, decide: () => Answer<T>): Promise<T> {
  const key = readKey(event)
  if (key === undefined) return respond(app, event, decide())
  // keys are the caller's own: a table link's never meet the API key's, so a guest can neither block nor probe the restaurant's
  const scope = event.context.guestCheckId ? `link:${event.context.guestCheckId}` : 'api'
  const id = `${accountId}\u0000${scope}\u0000${key}`
  const hash = requestHash(event, input)
  const stored = app.store.tables.idempotency_keys.get(id)
  if (stored) {
    if (stored.request_hash !== hash) {
      throw new ApiError(
        'idempotency_key_reused',
        `Idempotency-Key "${key}" was already used for another request; use a new key for a new request, or resend the original one unchanged.`,
        [{path: 'Idempotency-Key', message: 'already used with another method, path or body'}],
      )
    }
    setResponseHeader(event, 'idempotent-replayed', 'true')
    return respond(app, event, {status: stored.status, body: stored.body as T, changes: []})
  }
  const answer = decide()
  const record: IdempotencyRecord = {id, account_id: accountId, key, request_hash: hash, status: answer.status, body: answer.body, created_at: app.now()}
  return respond(app, event, {...answer, changes: [...answer.changes, put('idempotency_keys', id, record)]})
}
