import {describe, expect, it} from 'vitest'
import {chaosDraws, DRAWS, startChaos, stirDelivery} from '../../src/domain/chaos.js'
import {eventsToRecover, fanOut, recordDuplicate, redeliver, renderDelivery} from '../../src/domain/deliveries.js'
import {createEndpoint, rotateSecret, signingSecrets, updateEndpoint} from '../../src/domain/endpoints.js'
import type {DeliveryRecord, EventRecord, WebhookEndpointRecord} from '../../src/domain/records.js'
import type {WebhookEndpointUpdate} from '../../src/domain/schemas.js'
import {rejects} from '../helpers/rejects.js'

const NOW = '2026-01-01T12:00:00.000Z'
const T0 = Date.parse(NOW)

const endpoint = (more: Partial<WebhookEndpointRecord> = {}): WebhookEndpointRecord => ({
  ...createEndpoint('acct_a', {url: 'https://example.com/h', event_types: ['check.created']}, NOW, false),
  ...more,
})

const event = (id: string, minutes: number, type: EventRecord['type'] = 'check.created'): EventRecord => ({
  id,
  object: 'event',
  type,
  created_at: new Date(T0 + minutes * 60_000).toISOString(),
  data: {},
  account_id: 'acct_a',
})

describe('rotateSecret and signingSecrets', () => {
  it('signs with the new secret and the old one until the old expires on the scheduler clock, then with the new alone', () => {
    const before = endpoint()
    const rotated = rotateSecret(before, 3600, T0, NOW)
    expect(rotated.secret).toMatch(/^whsec_/)
    expect(rotated.secret).not.toBe(before.secret)
    expect(signingSecrets(rotated, T0)).toEqual([rotated.secret, before.secret])
    expect(signingSecrets(rotated, T0 + 3_599_999)).toEqual([rotated.secret, before.secret])
    expect(signingSecrets(rotated, T0 + 3_600_000)).toEqual([rotated.secret])
  })

  it('with no overlap, signs with the new secret alone at once; a second rotation drops the oldest', () => {
    const first = endpoint()
    expect(signingSecrets(rotateSecret(first, 0, T0, NOW), T0)).toHaveLength(1)
    const second = rotateSecret(rotateSecret(first, 60, T0, NOW), 60, T0, NOW)
    expect(signingSecrets(second, T0)).toHaveLength(2)
    expect(signingSecrets(second, T0)).not.toContain(first.secret)
  })
})

describe('updateEndpoint', () => {
  it('changes only the fields given, keeps a disabled endpoint disabled, and checks the URL as creation does', () => {
    const disabled = endpoint({status: 'disabled'})
    const updated = updateEndpoint(
      disabled,
      {event_types: ['check.closed', 'check.closed']},
      '2026-01-02T00:00:00.000Z',
      false,
    )
    expect(updated).toMatchObject({status: 'disabled', event_types: ['check.closed'], url: disabled.url})
    expect(updated.updated_at).toBe('2026-01-02T00:00:00.000Z')
    rejects(() => updateEndpoint(disabled, {url: 'http://example.com/h'}, NOW, false), 'validation_failed')
  })

  it('returns the endpoint itself, updated_at and all, for an update that changes nothing', () => {
    const current = endpoint({event_types: ['check.created', 'check.closed'], description: 'till 2'})
    const later = '2026-01-02T00:00:00.000Z'
    const nothingNew: WebhookEndpointUpdate[] = [
      {},
      {url: current.url, description: 'till 2'},
      {event_types: ['check.created', 'check.closed', 'check.created']},
    ]
    for (const input of nothingNew) expect(updateEndpoint(current, input, later, false)).toBe(current)
    // the same types in another order are a change: the endpoint shows them as given
    expect(updateEndpoint(current, {event_types: ['check.closed', 'check.created']}, later, false)).toMatchObject({
      event_types: ['check.closed', 'check.created'],
      updated_at: later,
    })
  })
})

describe('chaos', () => {
  it('draws the same numbers for the same seed and delivery number, other ones for another seed', () => {
    expect(chaosDraws(7, 3)).toEqual(chaosDraws(7, 3))
    expect(chaosDraws(7, 3)).not.toEqual(chaosDraws(8, 3))
    for (const u of chaosDraws(7, 3)) expect(u >= 0 && u < 1).toBe(true)
  })

  it('delays each delivery within the window and marks duplicates with the probability given, counting draws', () => {
    const chaos = startChaos({duplicate: 1, reorder_window_s: 10, seed: 1}, () => 0)
    const [delivery] = fanOut(event('evt_1', 0), [endpoint()], T0).deliveries
    const stirred = stirDelivery(delivery!, chaos, T0)
    const wait = Date.parse(stirred.delivery.next_attempt_at!) - T0
    expect(wait).toBeGreaterThanOrEqual(0)
    expect(wait).toBeLessThanOrEqual(10_000)
    expect(stirred.delivery.chaos_duplicate).toBe(true)
    expect(stirred.chaos.drawn).toBe(1)
    const calm = stirDelivery(
      delivery!,
      startChaos({seed: 1}, () => 0),
      T0,
    )
    expect(calm.delivery).toEqual(delivery)
  })

  it('counts draws up to DRAWS, then from 0 again: a count an import took draws on into one it takes', () => {
    const chaos = {...startChaos({seed: 1}, () => 0), drawn: DRAWS - 1}
    const [delivery] = fanOut(event('evt_1', 0), [endpoint()], T0).deliveries
    expect(stirDelivery(delivery!, chaos, T0).chaos.drawn).toBe(0)
  })

  it('fan-out stirs only endpoints under chaos, and hands back their chaos one draw further', () => {
    const wild = endpoint({chaos: startChaos({reorder_window_s: 100, seed: 3}, () => 0)})
    const {deliveries, stirred} = fanOut(event('evt_1', 0), [endpoint(), wild], T0)
    const [calm, chaotic] = deliveries
    expect(calm!.next_attempt_at).toBe(NOW)
    expect(chaotic!.next_attempt_at).not.toBe(NOW)
    expect(stirred).toEqual([{...wild, chaos: {...wild.chaos, drawn: 1}}])
  })

  it('a duplicate is one more attempt marked duplicate: true, which changes nothing else and is not drawn again', () => {
    const delivery: DeliveryRecord = {
      ...fanOut(event('evt_1', 0), [endpoint()], T0).deliveries[0]!,
      chaos_duplicate: true,
    }
    const result = {status_code: 200, duration_ms: 3, error: null, response_body: 'ok'}
    const twice = recordDuplicate({...delivery, status: 'succeeded'}, result, NOW, 1)
    expect(twice.status).toBe('succeeded')
    expect(twice.attempts.at(-1)).toMatchObject({attempt: 1, duplicate: true, status_code: 200})
    expect(twice.chaos_duplicate).toBeUndefined()
    expect(renderDelivery(delivery)).not.toHaveProperty('chaos_duplicate')
  })
})

describe('redeliver and eventsToRecover', () => {
  it('resends only to an enabled endpoint that takes the type', () => {
    const refusal = rejects(
      () => redeliver([event('e', 0, 'payment.succeeded')], endpoint(), T0, NOW),
      'event_type_not_subscribed',
    )
    expect(refusal.status).toBe(422)
    rejects(() => redeliver([event('e', 0)], endpoint({status: 'disabled'}), T0, NOW), 'endpoint_disabled')
    expect(redeliver([event('e', 0)], endpoint(), T0, NOW).deliveries).toMatchObject([
      {event_id: 'e', status: 'pending'},
    ])
  })

  it('counts the deliveries it makes on the endpoint; a later delivery knows the count it was made at', () => {
    const first = redeliver([event('a', 0), event('b', 1)], endpoint(), T0, NOW)
    expect(first.endpoint.redeliveries).toBe(2)
    expect(first.deliveries.map((d) => d.endpoint_redeliveries)).toEqual([undefined, undefined])
    const second = redeliver([event('a', 0)], first.endpoint, T0, NOW)
    expect([second.endpoint.redeliveries, second.deliveries[0]!.endpoint_redeliveries]).toEqual([3, 2])
    const [later] = fanOut(event('c', 2), [second.endpoint], T0).deliveries
    expect(later!.endpoint_redeliveries).toBe(3)
    // as written by the store: its account last, where a start finds it without parsing it
    expect(Object.keys(later!).at(-1)).toBe('account_id')
  })

  it('recovers the events since the time and the endpoint that have a delivery to it and no succeeded one, each once, oldest first', () => {
    const target = endpoint()
    const events = [
      event('before_endpoint', -10),
      event('done', 1),
      event('failed', 2),
      event('waiting', 3),
      event('type_dropped', 4, 'payment.succeeded'),
      event('elsewhere', 5),
      event('never', 6),
    ]
    const delivery = (eventId: string, status: DeliveryRecord['status'], endpointId = target.id) => ({
      ...fanOut(event(eventId, 0), [target], T0).deliveries[0]!,
      endpoint_id: endpointId,
      status,
    })
    const deliveries = [
      delivery('before_endpoint', 'dead'),
      delivery('done', 'pending'),
      delivery('done', 'succeeded'),
      delivery('failed', 'dead'),
      delivery('failed', 'dead'),
      delivery('waiting', 'pending'),
      delivery('type_dropped', 'dead'),
      delivery('elsewhere', 'dead', 'we_other'),
    ]
    const since = new Date(T0 - 3_600_000).toISOString()
    expect(eventsToRecover(events, deliveries, target, since).map((e) => e.id)).toEqual(['failed', 'waiting'])
    expect(eventsToRecover(events, deliveries, target, events[3]!.created_at).map((e) => e.id)).toEqual(['waiting'])
  })
})
