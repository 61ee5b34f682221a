import {describe, expect, it} from 'vitest'
import type {DeliveryRecord, EventRecord, WebhookEndpointRecord} from '../../src/domain/records.js'
import {Pruner, type Pruned, total} from '../../src/service/retention.js'
import {checkWith} from '../helpers/checks.js'
import {serviceForTest} from './service.js'

const HOUR_MS = 3_600_000

type TestService = Awaited<ReturnType<typeof serviceForTest>>['service']

/** `count` changing pushes to the check `t1`: one event each (check.created, then check.updated). */
async function pushes(service: TestService, count: number, from = 1) {
  for (let version = from; version < from + count; version++)
    await service.checks.push('acct_demo', 't1', checkWith([['a', version, 500]], {version}))
}

/** What each pass of one catch-up of `service`'s retention pruned, in order. */
async function catchUpPasses(service: TestService): Promise<Pruned[]> {
  const passes: Pruned[] = []
  const prune = service.retention.prune.bind(service.retention)
  service.retention.prune = async () => {
    passes.push(await prune())
    return passes.at(-1)!
  }
  await new Pruner(service.retention).catchUp()
  return passes
}

/** An endpoint for every check event: each push makes a delivery. */
const subscribe = (service: TestService) =>
  service.endpoints.create('acct_demo', {
    url: 'http://127.0.0.1:9/hooks',
    event_types: ['check.created', 'check.updated'],
  })

/** Each of `deliveries` ends with a 200 attempt: their events may go. */
async function endDeliveries(service: TestService, endpoint: WebhookEndpointRecord, deliveries: DeliveryRecord[]) {
  const ended = {now: new Date().toISOString(), dueAt: 0, schedule: [], disableAfter: 1000}
  for (const delivery of deliveries) {
    const result = {status_code: 200, duration_ms: 1, error: null, response_body: 'ok'}
    await service.deliveries.recordAttempt(delivery.id, endpoint, result, ended)
  }
}

/**
 * What the storage's units read of the events from now on: the events each
 * page walks (`walked`, ids or records, pass by pass) and the events read
 * whole (`records`, by a page of records or by id).
 */
function countEventReads(storage: Awaited<ReturnType<typeof serviceForTest>>['storage']) {
  const read = {walked: [] as number[], records: 0}
  const unit = storage.unit.bind(storage)
  storage.unit = ((work, durable) =>
    unit((tx) => {
      const counted = new Proxy(tx, {
        get(target, key) {
          const value: unknown = Reflect.get(target, key, target)
          if (typeof value !== 'function') return value
          return async (...args: unknown[]) => {
            const result: unknown = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args)
            if (args[0] !== 'events') return result
            if (key === 'page' || key === 'pageIds') read.walked.push((result as {records: unknown[]}).records.length)
            if (key === 'page') read.records += (result as {records: unknown[]}).records.length
            if (key === 'get' && result) read.records++
            return result
          }
        },
      })
      return work(counted)
    }, durable)) as typeof storage.unit
  return read
}

const sum = (numbers: number[]) => numbers.reduce((a, b) => a + b, 0)

describe('service.retention', () => {
  it('keeps at most --max-events events, the newest, with their deliveries, and never deletes one whose delivery is pending', async () => {
    const {service} = await serviceForTest({retention: {maxEvents: 50, pruneBatch: 50}})
    const endpoint = await subscribe(service)
    await pushes(service, 200)
    // every delivery but that of the first event has ended: those events may go, the first must stay
    const deliveries = await service.records.allOf('deliveries', 'acct_demo')
    await endDeliveries(service, endpoint, deliveries.slice(1))
    const newest = (await service.records.allOf('events', 'acct_demo')).slice(-50).map((e) => e.id)
    const first = deliveries[0]!.event_id
    while (total(await service.retention.prune()) > 0);
    const kept = await service.records.allOf('events', 'acct_demo')
    const keptDeliveries = await service.records.allOf('deliveries', 'acct_demo')
    // the pending one counts: the account holds 50 events
    expect(kept.map((e) => e.id)).toEqual([first, ...newest.slice(1)])
    expect(keptDeliveries.map((d) => d.event_id)).toEqual(kept.map((e) => e.id))
  })

  // batches of 50, not the 500 a server prunes: the same walk over a tenth of the pushes
  it('one pass looks past a whole batch of events kept for their pending deliveries, up to twice a batch', async () => {
    const {service} = await serviceForTest({retention: {maxEvents: 10, pruneBatch: 50}})
    const endpoint = await subscribe(service)
    await pushes(service, 120)
    // the deliveries of the first 90 events stay pending; those of the 30 after them have ended
    const deliveries = await service.records.allOf('deliveries', 'acct_demo')
    await endDeliveries(service, endpoint, deliveries.slice(90))
    const events = (await service.records.allOf('events', 'acct_demo')).map((e) => e.id)
    const pruned = await service.retention.prune()
    const kept = new Set((await service.records.allOf('events', 'acct_demo')).map((e) => e.id))
    // the pass reads the first 100 events in two batches: the 10 past the pending ones go, the later ones wait,
    // and it says more may be past retention
    expect(pruned).toEqual({events: 10, deliveries: 10, idempotency_keys: 0, more: true})
    expect(events.slice(0, 90).every((id) => kept.has(id))).toBe(true)
    expect(events.slice(90, 100).some((id) => kept.has(id))).toBe(false)
    expect(events.slice(100).every((id) => kept.has(id))).toBe(true)
  })

  it('a pass with nothing pending reads one batch of events: what it deletes, and no more', async () => {
    const {service, storage} = await serviceForTest({retention: {maxEvents: 10, pruneBatch: 50}})
    await pushes(service, 120)
    const read = countEventReads(storage)
    expect((await service.retention.prune()).events).toBe(50)
    // the events of every account walked in this pass (the others have none), and none read: past the count age does not matter
    expect([sum(read.walked), read.records]).toEqual([50, 0])
  })

  it('a pass at the bound reads the few events the count lets go and one more, not a batch', async () => {
    const {service, storage} = await serviceForTest({retention: {maxEvents: 10}})
    await pushes(service, 100)
    while (total(await service.retention.prune()) > 0);
    // steady pushes at the bound: a few events over it between two passes
    await pushes(service, 5, 101)
    const read = countEventReads(storage)
    expect((await service.retention.prune()).events).toBe(5)
    // the fifth is followed by one that is kept, read for its age: the pass stops there (the other accounts have no events)
    expect([sum(read.walked), read.records]).toEqual([6, 1])
    const versions = (await service.records.allOf('events', 'acct_demo')).map(
      (e) => (e.data as {version: number}).version,
    )
    expect(versions).toEqual([96, 97, 98, 99, 100, 101, 102, 103, 104, 105])
  })

  it("counts an account's events past the first kept, another account's made between them", async () => {
    const {service, storage} = await serviceForTest()
    for (let version = 1; version <= 6; version++) {
      await service.checks.push('acct_demo', 't1', checkWith([['a', version, 500]], {version}))
      await service.checks.push(
        'acct_other',
        't1',
        checkWith([['a', version, 500]], {version, location_id: 'loc_other_a'}),
      )
    }
    // acct_demo's 6 events take places over a span of 11 (on PostgreSQL: past 11, it is told without a count)
    const past = (kept: number) => storage.unit((tx) => tx.countPast('events', 'acct_demo', kept))
    const kept = [0, 4, 5, 6, 8, 11, 20]
    expect(await Promise.all(kept.map(past))).toEqual([6, 2, 1, 0, 0, 0, 0])
  })

  it('a catch-up runs passes back to back while one stops at its budget, and ends with the first that did not', async () => {
    const {service} = await serviceForTest({retention: {maxEvents: 10, pruneBatch: 4}})
    await pushes(service, 20)
    const passes = await catchUpPasses(service)
    // 10 past the bound, 4 a pass; the third leaves none past it, so no fourth pass comes to find nothing
    expect(passes.map(({events, more}) => [events, more])).toEqual([
      [4, true],
      [4, true],
      [2, false],
    ])
    expect(await service.records.allOf('events', 'acct_demo')).toHaveLength(10)
  })

  it('a catch-up ends with a pass that deletes nothing, though its look-ahead met only events kept for pending deliveries', async () => {
    const {service} = await serviceForTest({retention: {maxEvents: 10, pruneBatch: 4}})
    await subscribe(service)
    await pushes(service, 20)
    const passes = await catchUpPasses(service)
    // every event waits for its delivery: the pass looks at twice a batch, deletes none, and the next tick tries again
    expect(passes).toEqual([{events: 0, deliveries: 0, idempotency_keys: 0, more: true}])
  })

  it('forgets events older than the retention time, oldest first, by the wall clock', async () => {
    const {service, wall} = await serviceForTest({retention: {eventMaxAgeMs: 24 * HOUR_MS}})
    await pushes(service, 3)
    wall.ms += 20 * HOUR_MS
    await pushes(service, 2, 4)
    wall.ms += 5 * HOUR_MS
    while (total(await service.retention.prune()) > 0);
    const versions = (await service.records.allOf('events', 'acct_demo')).map(
      (e: EventRecord) => (e.data as {version: number}).version,
    )
    expect(versions).toEqual([4, 5])
  })

  it('a list walked newest first while pruning runs shows each survivor once and skips none', async () => {
    const {service} = await serviceForTest({retention: {maxEvents: 150}})
    await pushes(service, 300)
    const seen: string[] = []
    let page = await service.records.page('events', 'acct_demo', {limit: 40})
    seen.push(...page!.records.map((e) => e.id))
    // the oldest 150 go while the walk is between pages, its cursor among them at the end
    while (page!.hasMore) {
      await service.retention.prune()
      page = await service.records.page('events', 'acct_demo', {limit: 40, startingAfter: seen.at(-1)})
      seen.push(...page!.records.map((e) => e.id))
    }
    const survivors = (await service.records.allOf('events', 'acct_demo')).map((e) => e.id).reverse()
    expect(new Set(seen).size).toBe(seen.length)
    expect(seen.slice(0, survivors.length)).toEqual(survivors)
  })

  it('an Idempotency-Key is forgotten 24 h after its first use on the scheduler clock: the same key is a new payment', async () => {
    const {service, clock} = await serviceForTest()
    await pushes(service, 1)
    const check = (await service.records.checkByExternalId('acct_demo', 't1'))!
    const first = await service.guests.pay(check, {amount_cents: 100}, {key: 'k', scope: 'api', hash: 'h1'})
    await expect(service.guests.pay(check, {amount_cents: 200}, {key: 'k', scope: 'api', hash: 'h2'})).rejects.toThrow(
      /already used/,
    )
    clock.moveTo(clock.now() + 24 * HOUR_MS)
    const later = await service.guests.pay(check, {amount_cents: 200}, {key: 'k', scope: 'api', hash: 'h2'})
    expect([later.replayed, later.body.id === first.body.id]).toEqual([false, false])
  })

  it('an Idempotency-Key used after a clock advance is forgotten a wall-clock day later, once the clock is reset', async () => {
    const {service, clock, wall} = await serviceForTest()
    await pushes(service, 1)
    const check = (await service.records.checkByExternalId('acct_demo', 't1'))!
    clock.moveTo(clock.now() + 48 * HOUR_MS)
    await service.guests.pay(check, {amount_cents: 100}, {key: 'k', scope: 'api', hash: 'h1'})
    clock.reset()
    wall.ms += 24 * HOUR_MS
    const later = await service.guests.pay(check, {amount_cents: 200}, {key: 'k', scope: 'api', hash: 'h2'})
    expect(later.replayed).toBe(false)
    expect(later.body.amount_cents).toBe(200)
  })

  it('pruning forgets expired idempotency keys and keeps the others', async () => {
    const {service, clock} = await serviceForTest()
    await pushes(service, 1)
    const check = (await service.records.checkByExternalId('acct_demo', 't1'))!
    await service.guests.pay(check, {amount_cents: 100}, {key: 'old', scope: 'api', hash: 'h'})
    clock.moveTo(clock.now() + 23 * HOUR_MS)
    await service.guests.pay(check, {amount_cents: 100}, {key: 'new', scope: 'api', hash: 'h'})
    clock.moveTo(clock.now() + HOUR_MS)
    expect((await service.retention.prune()).idempotency_keys).toBe(1)
    expect((await service.records.allOf('idempotency_keys', 'acct_demo')).map((k) => k.key)).toEqual(['new'])
  })
})
