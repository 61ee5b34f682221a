import {describe, expect, it} from 'vitest'
import {
  attemptsMadeSince,
  cancelDelivery,
  mayHaveRedeliveries,
  recordAttempt,
  recordDuplicate,
  renderDelivery,
  requeueDelivery,
  supersede,
} from '../../src/domain/deliveries.js'
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
const endpoint = {status: 'enabled', consecutive_dead: 0, event_types: ['check.created']} as WebhookEndpointRecord

describe('deliveries', () => {
  it('an attempt keeps the fields of the JSON sent deliveries have always had, in that order; a duplicate adds its mark last', () => {
    const attempted = recordAttempt(delivery, endpoint, ok, options).delivery
    const fields = ['attempt', 'at', 'scheduled_at', 'status_code', 'error', 'response_body', 'duration_ms']
    expect(Object.keys(attempted.attempts[0]!)).toEqual(fields)
    expect(attempted.attempts[0]).toEqual({attempt: 1, at: NOW, scheduled_at: NOW, ...ok})
    const duplicated = recordDuplicate(attempted, ok, NOW, 2)
    expect(Object.keys(duplicated.attempts[1]!)).toEqual([...fields, 'duplicate'])
    expect(delivery.attempts).toEqual([])
  })

  it('a chaos duplicate does not count as a try: a manual retry that fails waits the second step, not the third', () => {
    const succeeded = recordAttempt(delivery, endpoint, ok, options).delivery
    const duplicated = recordDuplicate(succeeded, ok, NOW, 2)
    const retried = requeueDelivery(duplicated, endpoint, DUE, NOW)
    const next = recordAttempt(retried, endpoint, failed, options).delivery
    expect(next.attempts.map((a) => a.attempt)).toEqual([1, 2, 3])
    expect(next.next_attempt_at).toBe(new Date(DUE + 300_000).toISOString())
  })

  it('a chaos duplicate is numbered as it was sent, though another attempt was recorded while it was out', () => {
    // another instance took attempt 1 over and recorded it first; this one's late success is its copy
    const other = recordAttempt(delivery, endpoint, ok, options).delivery
    const copy = {...other, attempts: [...other.attempts, {...other.attempts[0]!, duplicate: true as const}]}
    const duplicated = recordDuplicate(copy, ok, NOW, 2)
    expect(duplicated.attempts.map((a) => [a.attempt, a.duplicate])).toEqual([
      [1, undefined],
      [1, true],
      [2, true],
    ])
  })

  it('a delivery counts toward disabling its endpoint once: manual retries of it, dead, that fail count nothing more', () => {
    let [dead, counted] = [delivery, endpoint]
    for (const _ of [0, ...options.schedule])
      ({delivery: dead, endpoint: counted} = recordAttempt(dead, counted, failed, options))
    expect([dead.status, counted.consecutive_dead]).toEqual(['dead', 1])
    const retried = requeueDelivery(dead, counted, DUE, NOW)
    const again = recordAttempt(retried, counted, failed, {...options, disableAfter: 2})
    expect([again.delivery.status, again.endpoint]).toEqual(['dead', counted])
    // nor on a longer schedule, where the retry waits its next step first
    const longer = {...options, schedule: [...options.schedule, 60], disableAfter: 2}
    const waiting = recordAttempt(retried, counted, failed, longer).delivery
    const last = recordAttempt(requeueDelivery(waiting, counted, DUE, NOW), counted, failed, longer)
    expect([last.delivery.status, last.endpoint]).toEqual(['dead', counted])
    // and a success still resets the count
    expect(recordAttempt(retried, counted, ok, options).endpoint.consecutive_dead).toBe(0)
    // `account_id` stays last (store/unread.ts)
    expect(Object.keys(dead).at(-1)).toBe('account_id')
  })

  it('a delivery that never went dead counts when it does, however many attempts it had: after a success, or on a shorter schedule', () => {
    let answered = delivery
    for (const _ of options.schedule) answered = recordAttempt(answered, endpoint, failed, options).delivery
    answered = recordAttempt(answered, endpoint, ok, options).delivery
    const retried = requeueDelivery(answered, endpoint, DUE, NOW)
    expect(recordAttempt(retried, endpoint, failed, options).endpoint.consecutive_dead).toBe(1)
    const pending = recordAttempt(
      recordAttempt(delivery, endpoint, failed, options).delivery,
      endpoint,
      failed,
      options,
    )
    const shorter = recordAttempt(pending.delivery, endpoint, failed, {...options, schedule: [60]})
    expect([shorter.delivery.status, shorter.endpoint.consecutive_dead]).toEqual(['dead', 1])
  })

  it('an attempt out when its delivery was retried is recorded, and the retry still stands', () => {
    const later = '2026-01-02T03:04:06.000Z'
    // retried while the attempt was out: due again at the same scheduler time (a paused clock), written later
    const retried = requeueDelivery(delivery, endpoint, DUE, later)
    const recorded = recordAttempt(retried, endpoint, ok, {...options, claimed: delivery}).delivery
    expect(recorded.attempts.map((a) => a.status_code)).toEqual([200])
    expect([recorded.status, recorded.next_attempt_at]).toEqual(['pending', NOW])
    // not retried: the attempt decides
    expect(recordAttempt(delivery, endpoint, ok, {...options, claimed: delivery}).delivery.status).toBe('succeeded')
  })

  it('a failed attempt out when its delivery was retried counts nothing against its endpoint', () => {
    const retried = requeueDelivery(delivery, endpoint, DUE + 1000, NOW)
    const outcome = recordAttempt(retried, endpoint, failed, {...options, claimed: delivery, disableAfter: 1})
    expect(outcome.delivery.status).toBe('pending')
    expect(outcome.delivery.next_attempt_at).toBe(new Date(DUE + 1000).toISOString())
    expect(outcome.endpoint).toBe(endpoint)
  })

  it('an attempt out when its endpoint was deleted is recorded: a 2xx succeeds, a failure leaves it canceled with no retry', () => {
    const canceled = cancelDelivery(delivery, NOW)
    const answered = recordAttempt(canceled, endpoint, ok, {...options, claimed: delivery})
    expect(answered.delivery).toMatchObject({
      status: 'succeeded',
      next_attempt_at: null,
      attempts: [{status_code: 200}],
    })
    expect(answered.endpoint).toBe(endpoint)
    const refused = recordAttempt(canceled, endpoint, failed, {...options, claimed: delivery, disableAfter: 1})
    expect(refused.delivery).toMatchObject({status: 'canceled', next_attempt_at: null, attempts: [{status_code: 500}]})
    // the endpoint is gone: its count of dead deliveries moves nothing
    expect(refused.endpoint).toBe(endpoint)
  })

  it('the attempts made since a due time are counted, that one included, duplicates left out', () => {
    const first = recordAttempt(delivery, endpoint, failed, options).delivery
    const dueNext = Date.parse(first.next_attempt_at!)
    const second = recordAttempt(first, endpoint, failed, {...options, dueAt: dueNext, claimed: first}).delivery
    expect(attemptsMadeSince(second, DUE)).toBe(2)
    expect(attemptsMadeSince(second, DUE + 1)).toBe(1)
    expect(attemptsMadeSince(second, dueNext + 1)).toBe(0)
    expect(attemptsMadeSince(delivery, DUE)).toBe(0)
    const duplicated = recordDuplicate(recordAttempt(delivery, endpoint, ok, options).delivery, ok, NOW, 2)
    expect(attemptsMadeSince(duplicated, DUE)).toBe(1)
  })

  it('the attempts made since a due time and sent since a wall time leave out those sent before it', () => {
    const [first, second] = ['2026-11-25T10:00:00.000Z', '2026-11-25T10:05:00.000Z'].map(
      (at) =>
        recordAttempt(delivery, endpoint, {...failed, duration_ms: 400}, {...options, now: at}).delivery.attempts[0]!,
    )
    const both = {...delivery, attempts: [first!, {...second!, attempt: 2}]}
    // the first was sent at 09:59:59.600, before a run begun at 10:00:00; the second after it
    expect(attemptsMadeSince(both, DUE, Date.parse('2026-11-25T10:00:00.000Z'))).toBe(1)
    expect(attemptsMadeSince(both, DUE, Date.parse('2026-11-25T09:59:59.600Z'))).toBe(2)
  })
})

describe('superseded deliveries', () => {
  it('a superseded delivery names the one that succeeded, waits for nothing, and keeps its account last', () => {
    const superseded = supersede(delivery, 'dlv_2', NOW)
    expect(superseded).toMatchObject({status: 'superseded', superseded_by: 'dlv_2', next_attempt_at: null})
    expect(Object.keys(superseded).at(-1)).toBe('account_id')
    expect(renderDelivery(superseded)).toMatchObject({status: 'superseded', superseded_by: 'dlv_2'})
  })

  it('an attempt out when its delivery was superseded is recorded, whatever it came to, and nothing follows it', () => {
    const superseded = supersede(delivery, 'dlv_2', NOW)
    for (const result of [ok, failed]) {
      const outcome = recordAttempt(superseded, endpoint, result, {...options, claimed: delivery, disableAfter: 1})
      expect(outcome.delivery).toMatchObject({status: 'superseded', superseded_by: 'dlv_2', next_attempt_at: null})
      expect(outcome.delivery.attempts).toHaveLength(1)
      expect(outcome.endpoint).toBe(endpoint)
    }
  })

  it('an attempt that ends after another made its delivery succeed is recorded, and nothing follows it', () => {
    // another instance's attempt succeeded while this one was out (a takeover, docs/postgres.md)
    const done = recordAttempt(delivery, endpoint, ok, options).delivery
    for (const result of [ok, failed]) {
      const outcome = recordAttempt(done, endpoint, result, {...options, claimed: delivery, disableAfter: 1})
      expect(outcome.delivery).toMatchObject({status: 'succeeded', next_attempt_at: null})
      expect(outcome.delivery.attempts).toHaveLength(2)
      expect(outcome.endpoint).toBe(endpoint)
    }
  })

  it('an attempt another instance took over and recorded meanwhile is a copy, numbered as sent, that moves no retry', () => {
    // the other instance sent the same attempt again and recorded its failure (a takeover, docs/postgres.md)
    const taken = recordAttempt(delivery, endpoint, failed, options).delivery
    const late = recordAttempt(taken, endpoint, failed, {...options, claimed: delivery, disableAfter: 1})
    expect(late.delivery.attempts.map((a) => [a.attempt, a.duplicate])).toEqual([
      [1, undefined],
      [1, true],
    ])
    expect(late.delivery).toMatchObject({status: 'pending', next_attempt_at: taken.next_attempt_at})
    expect(late.endpoint).toBe(endpoint)
    // the retry it left is the second try: numbered 2, and the next wait is the schedule's second
    const dueNext = Date.parse(taken.next_attempt_at!)
    const retry = {...options, dueAt: dueNext, claimed: late.delivery}
    const second = recordAttempt(late.delivery, endpoint, failed, retry).delivery
    expect(second.attempts.at(-1)).toMatchObject({attempt: 3, scheduled_at: taken.next_attempt_at})
    expect(second.attempts.at(-1)).not.toHaveProperty('duplicate')
    expect(second.next_attempt_at).toBe(new Date(dueNext + 300_000).toISOString())
    // the receiver got the event: the delivery succeeded, whatever the other's attempt came to
    const through = recordAttempt(taken, endpoint, ok, {...options, claimed: delivery}).delivery
    expect(through).toMatchObject({status: 'succeeded', next_attempt_at: null})
  })

  it("a copy recorded while the other instance's retry is out leaves that retry to move the schedule", () => {
    // the other instance recorded the first attempt and claimed its retry; this one's copy of the first lands then
    const taken = recordAttempt(delivery, endpoint, failed, options).delivery
    const dueNext = Date.parse(taken.next_attempt_at!)
    const copied = recordAttempt(taken, endpoint, failed, {...options, claimed: delivery}).delivery
    const retried = recordAttempt(copied, endpoint, failed, {...options, dueAt: dueNext, claimed: taken}).delivery
    expect(retried).toMatchObject({status: 'pending', next_attempt_at: new Date(dueNext + 300_000).toISOString()})
    expect(retried.attempts.map((a) => [a.attempt, a.scheduled_at, a.duplicate])).toEqual([
      [1, NOW, undefined],
      [1, NOW, true],
      [2, taken.next_attempt_at, undefined],
    ])
  })

  it('a retry of a superseded delivery makes it pending again, superseded by nothing', () => {
    const retried = requeueDelivery(supersede(delivery, 'dlv_2', NOW), endpoint, DUE, NOW)
    expect(retried.status).toBe('pending')
    expect(retried).not.toHaveProperty('superseded_by')
  })

  it('others of its event may be pending only once a resend or recovery to the endpoint came after it, or it is one', () => {
    expect(mayHaveRedeliveries(delivery, endpoint)).toBe(false)
    expect(mayHaveRedeliveries(delivery, {...endpoint, redeliveries: 1})).toBe(true)
    expect(mayHaveRedeliveries({...delivery, endpoint_redeliveries: 1}, {...endpoint, redeliveries: 1})).toBe(false)
    expect(mayHaveRedeliveries({...delivery, endpoint_redeliveries: 1}, {...endpoint, redeliveries: 3})).toBe(true)
    expect(renderDelivery({...delivery, endpoint_redeliveries: 1})).not.toHaveProperty('endpoint_redeliveries')
  })
})
