import {expect, it} from 'vitest'
import type {DeliveryRecord} from '../../src/domain/records.js'
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

it("counts during a run another instance's attempts sent since the run began, not those sent before", async () => {
  const attempts = new AttemptCounter()
  const sent = (at: number) => ({
    scheduled_at: '2026-11-25T00:00:00.000Z',
    at: new Date(at).toISOString(),
    duration_ms: 0,
  })
  const made = await attempts.during(async () => {
    const begun = Date.now()
    const record = {attempts: [sent(begun - 60_000), sent(begun + 1)]} as unknown as DeliveryRecord
    attempts.countMadeElsewhere(record, Date.parse('2026-11-25T00:00:00.000Z'))
    attempts.count()
  })
  expect(made).toBe(2)
  // outside a run, each counts
  const before = attempts.total
  attempts.countMadeElsewhere({attempts: [sent(0)]} as unknown as DeliveryRecord, 0)
  expect(attempts.total - before).toBe(1)
})
