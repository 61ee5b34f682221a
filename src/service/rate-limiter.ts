import {type Bucket, takeToken, type TokenTake} from '../domain/rate-limit.js'

/**
 * `serve --rate-limit N`: a token bucket per account, N a second with a
 * burst of N (docs/api.md, "Faults and rate limits"). `now` is its clock, in
 * ms: tests pass their own and move it instead of waiting.
 *
 * @example
 * const limiter = new RateLimiter(5)
 * if (!limiter.take('acct_demo').allowed) throw tooMany()
 */
export class RateLimiter {
  #buckets = new Map<string, Bucket>()
  #sweptAt = 0

  constructor(
    readonly perSecond: number,
    readonly now: () => number = Date.now,
  ) {}

  take(key: string): TokenTake {
    const now = this.now()
    if (now - this.#sweptAt >= REFILL_MS) this.#sweep(now)
    const taken = takeToken(this.#buckets.get(key), this.perSecond, now)
    this.#buckets.set(key, taken.bucket)
    return taken
  }

  /** How many keys have a bucket. */
  get size(): number {
    return this.#buckets.size
  }

  /**
   * Forgets the buckets untouched for a second: they are full again, as a new key's is, so nothing changes,
   * and the keys that stop coming (a deleted scratch account's) leave nothing behind. At most once a second.
   */
  #sweep(now: number): void {
    for (const [key, bucket] of this.#buckets) if (now - bucket.at >= REFILL_MS) this.#buckets.delete(key)
    this.#sweptAt = now
  }
}

/** A bucket refills its whole burst (N tokens at N a second) within this long. */
const REFILL_MS = 1000
