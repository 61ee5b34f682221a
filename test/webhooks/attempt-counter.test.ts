import {expect, it} from 'vitest'
import {AttemptCounter} from '../../src/webhooks/attempt-counter.js'

it('counts the attempts made, and a run of them is the difference of its totals', () => {
  const attempts = new AttemptCounter()
  expect(attempts.total).toBe(0)
  attempts.count()
  const before = attempts.total
  attempts.count()
  attempts.count()
  expect(attempts.total - before).toBe(2)
})
