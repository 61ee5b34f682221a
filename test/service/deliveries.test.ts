import {describe, expect, it} from 'vitest'
import {checkWith} from '../helpers/checks.js'
import {NOW, serviceForTest} from './service.js'

const options = {now: NOW, dueAt: Date.parse(NOW), schedule: [60], disableAfter: 1}
const failed = {status_code: 500, duration_ms: 3, error: null, response_body: 'no'}

async function withDelivery() {
  const test = await serviceForTest()
  const endpoint = await test.service.endpoints.create('acct_demo', {
    url: 'http://127.0.0.1:9/hooks',
    event_types: ['check.created'],
  })
  await test.service.checks.push('acct_demo', 't1', checkWith([['a', 1, 500]]))
  const [delivery] = await test.service.records.allOf('deliveries', 'acct_demo')
  return {...test, endpoint, delivery: delivery!}
}

describe('service.deliveries', () => {
  it('attaching the queue returns what is pending: the deliveries a stopped server left', async () => {
    const {service, delivery} = await withDelivery()
    expect((await service.deliveries.attach(() => {})).map((d) => d.id)).toEqual([delivery.id])
  })

  it('a failed attempt schedules the retry; the last failure disables the endpoint in the same unit', async () => {
    const {service, storage, endpoint, delivery, queued} = await withDelivery()
    queued.length = 0
    await service.deliveries.recordAttempt(delivery.id, endpoint, failed, options)
    expect(await storage.get('deliveries', delivery.id)).toMatchObject({
      status: 'pending',
      next_attempt_at: '2026-01-02T03:05:05.000Z',
    })
    await service.deliveries.recordAttempt(delivery.id, endpoint, failed, options)
    expect((await storage.get('deliveries', delivery.id))?.status).toBe('dead')
    expect((await service.records.get('webhook_endpoints', endpoint.id))?.status).toBe('disabled')
    expect(queued.map((changes) => changes.map(([collection]) => collection))).toEqual([
      ['deliveries'],
      ['deliveries', 'webhook_endpoints'],
    ])
  })

  it('a retry waits from when the failed attempt was due, or, sent late, from when it was sent: never due at once', async () => {
    const {service, storage, endpoint, delivery} = await withDelivery()
    const next = async () => (await storage.get('deliveries', delivery.id))?.next_attempt_at
    const schedule = {...options, schedule: [60, 300, 1800]}
    // sent 10 s after it was due: on time, the schedule's exact time
    await service.deliveries.recordAttempt(delivery.id, endpoint, failed, {...schedule, madeAt: options.dueAt + 10_000})
    expect(await next()).toBe('2026-01-02T03:05:05.000Z')
    // attempt 2 sent an hour late (the server was stopped): attempt 3 is 5 m after it, not due at once
    const dueAt = Date.parse('2026-01-02T03:05:05.000Z')
    await service.deliveries.recordAttempt(delivery.id, endpoint, failed, {
      ...schedule,
      dueAt,
      madeAt: dueAt + 3_600_500,
    })
    expect(await next()).toBe('2026-01-02T04:10:05.000Z')
  })

  it('attempts that end together are recorded in one unit, each on the endpoint as the one before left it', async () => {
    const {service, storage, endpoint, delivery, queued} = await withDelivery()
    await service.checks.push('acct_demo', 't2', checkWith([['b', 1, 500]]))
    const [, second] = await service.records.allOf('deliveries', 'acct_demo')
    const twoDead = {...options, disableAfter: 2}
    for (const id of [delivery.id, second!.id]) await service.deliveries.recordAttempt(id, endpoint, failed, twoDead)
    queued.length = 0
    // both go dead: the endpoint is disabled only if the second counts on the endpoint the first left
    await Promise.all(
      [delivery.id, second!.id].map((id) => service.deliveries.recordAttempt(id, endpoint, failed, twoDead)),
    )
    expect((await service.records.get('webhook_endpoints', endpoint.id))?.status).toBe('disabled')
    expect(queued).toHaveLength(1)
    const written = queued[0]!.filter(([collection]) => collection === 'deliveries').map(([, id]) => id)
    expect(new Set(written)).toEqual(new Set([delivery.id, second!.id]))
    for (const id of written) expect((await storage.get('deliveries', id))?.status).toBe('dead')
  })

  it('an attempt whose delivery was deleted meanwhile records nothing', async () => {
    const {service, storage, endpoint, delivery} = await withDelivery()
    await service.sim.reset('acct_demo')
    await service.deliveries.recordAttempt(delivery.id, endpoint, failed, options)
    expect(await storage.get('deliveries', delivery.id)).toBeUndefined()
  })

  it('a retry makes a dead delivery pending again', async () => {
    const {service, storage, endpoint, delivery} = await withDelivery()
    // the endpoint stays enabled: a retry goes only to an enabled endpoint
    const stays = {...options, disableAfter: 10}
    await service.deliveries.recordAttempt(delivery.id, endpoint, failed, stays)
    await service.deliveries.recordAttempt(delivery.id, endpoint, failed, stays)
    const retried = await service.deliveries.retry((await storage.get('deliveries', delivery.id))!)
    expect([retried.status, retried.attempts.length]).toEqual(['pending', 2])
  })

  it('a claim brings the attempt its endpoint and event, and no target once the endpoint is disabled', async () => {
    const {service, storage, endpoint, delivery} = await withDelivery()
    const due = Date.parse(delivery.next_attempt_at!)
    expect(await service.deliveries.claim(delivery.id, due, 40_000)).toMatchObject({
      delivery: {id: delivery.id, status: 'pending'},
      target: {endpoint: {id: endpoint.id, status: 'enabled'}, event: {id: delivery.event_id}},
    })
    // disabled by hand, its delivery left pending: what a change racing the attempt can leave
    await storage.unit(async (tx) => tx.put('webhook_endpoints', endpoint.id, {...endpoint, status: 'disabled'}))
    const attempt = await service.deliveries.claim(delivery.id, due, 40_000)
    expect(attempt).toMatchObject({delivery: {id: delivery.id, status: 'pending'}, target: undefined})
  })

  it('a retry keeps an attempt recorded after the route read the delivery', async () => {
    const {service, storage, endpoint, delivery} = await withDelivery()
    // the dispatcher records an attempt while the retry request holds the delivery it read before
    await service.deliveries.recordAttempt(delivery.id, endpoint, failed, options)
    const retried = await service.deliveries.retry(delivery)
    expect([retried.status, retried.attempts.length]).toEqual(['pending', 1])
    expect((await storage.get('deliveries', delivery.id))?.attempts).toHaveLength(1)
  })

  it('a retry of a delivery deleted since the route read it is a 404 and writes nothing', async () => {
    const {service, storage, delivery} = await withDelivery()
    await service.sim.reset('acct_demo')
    await expect(service.deliveries.retry(delivery)).rejects.toMatchObject({code: 'not_found'})
    expect(await storage.get('deliveries', delivery.id)).toBeUndefined()
  })

  it('a retry to a disabled or deleted endpoint is a 409 endpoint_disabled and changes nothing', async () => {
    const {service, storage, endpoint, delivery} = await withDelivery()
    await service.deliveries.recordAttempt(delivery.id, endpoint, failed, options)
    await service.deliveries.recordAttempt(delivery.id, endpoint, failed, options)
    const dead = (await storage.get('deliveries', delivery.id))!
    expect((await service.records.get('webhook_endpoints', endpoint.id))?.status).toBe('disabled')
    await expect(service.deliveries.retry(dead)).rejects.toMatchObject({code: 'endpoint_disabled'})
    await service.endpoints.delete((await service.records.get('webhook_endpoints', endpoint.id))!)
    await expect(service.deliveries.retry(dead)).rejects.toMatchObject({code: 'endpoint_disabled'})
    expect(await storage.get('deliveries', delivery.id)).toEqual(dead)
  })

  it('a retry after its endpoint was deleted is refused when an endpoint of the same chosen id was made since', async () => {
    const test = await serviceForTest()
    const {service, storage, wall} = test
    const chosen = {id: 'we_again', url: 'http://127.0.0.1:9/hooks', secret: 'whsec_chosen_again_0123456789'}
    const first = await service.endpoints.createWithSecret('acct_demo', {...chosen, event_types: ['check.created']})
    await service.checks.push('acct_demo', 't1', checkWith([['a', 1, 500]]))
    const [delivery] = await service.records.allOf('deliveries', 'acct_demo')
    wall.ms += 1000
    await service.endpoints.delete(first)
    await service.endpoints.createWithSecret('acct_demo', {...chosen, event_types: ['feedback.received']})
    const canceled = (await storage.get('deliveries', delivery!.id))!
    await expect(service.deliveries.retry(canceled)).rejects.toMatchObject({
      code: 'endpoint_disabled',
      message: expect.stringContaining('Endpoint we_again was deleted'),
    })
    expect(await storage.get('deliveries', delivery!.id)).toEqual(canceled)
  })

  it('canceling a delivery that a reset deleted meanwhile leaves it deleted', async () => {
    const {service, storage, delivery} = await withDelivery()
    // the dispatcher read the delivery, then found its event gone: the reset deleted both
    await service.sim.reset('acct_demo')
    await service.deliveries.cancel(delivery, NOW)
    expect(await storage.get('deliveries', delivery.id)).toBeUndefined()
  })
})
