import {describe, expect, it} from 'vitest'
import {recordAttempt, recordDuplicate, requeueDelivery} from '../../src/domain/deliveries.js'
import type {DeliveryRecord, WebhookEndpointRecord} from '../../src/domain/records.js'

const NOW = '2026-01-02T03:04:05.000Z'
const DUE = Date.parse(NOW)
const options = {now: NOW, dueAt: DUE, schedule: [60, 300, 1800], disableAfter: 10}
const ok = {status_code: 200, duration_ms: 1, error: null, response_body: 'ok'}
const failed = {status_code: 500, duration_ms: 1, error: null, response_body: 'no'}

const delivery = {
  id: 'dlv_1',
  object: 'delivery',
  endpoint_id: 'we_1',
  event_id: 'evt_1',
  event_type: 'check.created',
  status: 'pending',
  attempts: [],
  next_attempt_at: NOW,
  created_at: NOW,
  updated_at: NOW,
  account_id: 'acct_demo',
} as DeliveryRecord
const endpoint = {status: 'enabled', consecutive_dead: 0} as WebhookEndpointRecord

describe('deliveries', () => {
  it('a chaos duplicate does not count as a try: a manual retry that fails waits the second step, not the third', () => {
    const succeeded = recordAttempt(delivery, endpoint, ok, options).delivery
    const duplicated = recordDuplicate(succeeded, ok, NOW)
    const retried = requeueDelivery(duplicated, endpoint, DUE, NOW)
    const next = recordAttempt(retried, endpoint, failed, options).delivery
    expect(next.attempts.map((a) => a.attempt)).toEqual([1, 2, 3])
    expect(next.next_attempt_at).toBe(new Date(DUE + 300_000).toISOString())
  })
})
