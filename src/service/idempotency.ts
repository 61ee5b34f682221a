import {ApiError} from '../domain/errors.js'
import type {IdempotencyRecord} from '../domain/records.js'
import type {UnitOfWork} from './storage.js'

/** An `Idempotency-Key` as the caller sent it, where it applies, and a hash of the request it came with. */
export interface IdempotentRequest {
  key: string
  /** Keys are the caller's own: a table link's (`link:{check}`) never meet the API key's (`api`). */
  scope: string
  /** Equal for the same method, path and body. */
  hash: string
}

/** The times of keys: when one is used, when it will be forgotten, and whether a stored one is. */
export interface KeyClock {
  now: () => string
  expiresAt: () => string
  forgotten: (record: IdempotencyRecord) => boolean
}

/** What an action answered: its status and body, and whether it is a replay of a stored answer. */
export interface Answer<T> {
  status: number
  body: T
  replayed: boolean
}

/**
 * Within `tx`: the answer stored for `request`'s key, or `decide`'s, stored
 * with it so that a retry of the same request gets it again. The same key
 * with another request is refused. Only successes are stored: a refusal
 * changed nothing, so retrying it runs again. A key `forgotten` (past its
 * time) is as good as new (docs/api.md, Idempotency-Key). The key is read
 * exclusively, before `decide` reads anything: copies sent at once wait for
 * the first and replay its answer, instead of deciding on what it changed.
 */
export async function once<T>(
  tx: UnitOfWork,
  accountId: string,
  request: IdempotentRequest | undefined,
  keys: KeyClock,
  decide: () => Promise<{status: number; body: T}>,
): Promise<Answer<T>> {
  if (request === undefined) return {...(await decide()), replayed: false}
  const {key, scope, hash} = request
  const id = `${accountId}\u0000${scope}\u0000${key}`
  const stored = await tx.getExclusive('idempotency_keys', id)
  if (stored && !keys.forgotten(stored)) {
    if (stored.request_hash !== hash) {
      throw new ApiError(
        'idempotency_key_reused',
        `Idempotency-Key "${key}" was already used for another request; ` +
          'use a new key for a new request, or resend the original one unchanged.',
        [{path: 'Idempotency-Key', message: 'already used with another method, path or body'}],
      )
    }
    return {status: stored.status, body: stored.body as T, replayed: true}
  }
  const answer = await decide()
  const record: IdempotencyRecord = {
    id,
    account_id: accountId,
    key,
    request_hash: hash,
    status: answer.status,
    body: answer.body,
    created_at: keys.now(),
    expires_at: keys.expiresAt(),
  }
  tx.put('idempotency_keys', id, record)
  return {...answer, replayed: false}
}
