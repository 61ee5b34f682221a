import {type Bucket, takeToken, type TokenTake} from '../domain/rate-limit.js'

/**
 * `serve --rate-limit N`: a token bucket per API key, N a second with a
 * burst of N (docs/api.md, "Faults and rate limits"). `now` is its clock, in
 * ms: tests pass their own and move it instead of waiting.
 *
 * @example
 * const limiter = new RateLimiter(5)
 * if (!limiter.take('tp_test_demo_write').allowed) throw tooMany()
 */
export class RateLimiter {
  #buckets = new Map<string, Bucket>()

  constructor(
    readonly perSecond: number,
    readonly now: () => number = Date.now,
  ) {}

  take(key: string): TokenTake {
    const taken = takeToken(this.#buckets.get(key), this.perSecond, this.now())
    this.#buckets.set(key, taken.bucket)
    return taken
  }
}
