import {describe, expect, it} from 'vitest'
import {RateLimiter} from '../../src/service/rate-limiter.js'

describe('RateLimiter', () => {
  it('forgets a bucket a second after its last request, full again by then: a key that stops coming leaves nothing', () => {
    let now = 0
    const limiter = new RateLimiter(2, () => now)
    expect([limiter.take('a').allowed, limiter.take('a').allowed, limiter.take('a').allowed]).toEqual([
      true,
      true,
      false,
    ])
    now = 999
    limiter.take('b')
    expect(limiter.size).toBe(2)
    now = 2000
    limiter.take('b')
    expect(limiter.size).toBe(1)
    // forgetting it changed nothing: 'a' starts full, as it would have been
    expect(limiter.take('a')).toMatchObject({allowed: true, remaining: 1})
  })
})
