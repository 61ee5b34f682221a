/** A token bucket: what is left of it, and when that was counted (ms). */
export interface Bucket {
  tokens: number
  at: number
}

export interface TokenTake {
  bucket: Bucket
  allowed: boolean
  /** Whole tokens left after this request. */
  remaining: number
  /** When refused: whole seconds (at least 1) until a token is back. */
  retryAfterS: number
}

/**
 * Takes one token from a bucket of `perSecond` tokens refilled at
 * `perSecond` a second (burst `perSecond`), at `now` ms. A new key starts full.
 *
 * @example
 * const {allowed, bucket} = takeToken(undefined, 5, Date.now())
 */
export function takeToken(bucket: Bucket | undefined, perSecond: number, now: number): TokenTake {
  const elapsed = bucket ? Math.max(now - bucket.at, 0) : 0
  const tokens = bucket ? Math.min(perSecond, bucket.tokens + (elapsed * perSecond) / 1000) : perSecond
  if (tokens >= 1) {
    const left = tokens - 1
    return {bucket: {tokens: left, at: now}, allowed: true, remaining: Math.floor(left), retryAfterS: 0}
  }
  const retryAfterS = Math.max(1, Math.ceil((1 - tokens) / perSecond))
  return {bucket: {tokens, at: now}, allowed: false, remaining: 0, retryAfterS}
}
