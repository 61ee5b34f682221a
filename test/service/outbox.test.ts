import {describe, expect, it} from 'vitest'
import {DEFAULT_RETENTION} from '../../src/domain/retention.js'
import {createServiceLayer} from '../../src/service/index.js'
import {total} from '../../src/service/retention.js'
import {checkWith} from '../helpers/checks.js'
import {onPostgres} from '../helpers/postgres.js'
import {collectionsOf, serviceForTest} from './service.js'

const HOOKS = {url: 'http://127.0.0.1:9/hooks', event_types: ['check.created' as const, 'check.updated' as const]}

/** Nine endpoints for HOOKS: a push then makes more deliveries than it writes itself (INLINE_DELIVERIES, 8). */
async function nineEndpoints(service: Awaited<ReturnType<typeof serviceForTest>>['service']) {
  const endpoints = []
  for (let i = 0; i < 9; i++) endpoints.push(await service.endpoints.create('acct_demo', HOOKS))
  return endpoints
}

describe('service.outbox (docs/storage.md, "Deferred fan-out")', () => {
  it("a push's deliveries are written after a restart when the server stopped before its fan-out ran", async () => {
    const {service, storage} = await serviceForTest()
    const endpoints = await nineEndpoints(service)
    const pushed = await service.checks.push('acct_demo', 't1', checkWith([['a', 1, 500]]))
    // stops before the background unit runs: on its own store the push left only its event and a mark
    await service.outbox.close()
    expect((await storage.list('deliveries', 'acct_demo')).length).toBe(onPostgres ? 9 : 0)

    const restarted = createServiceLayer({...service.context, storage})
    const told: string[] = []
    await restarted.deliveries.attach((changes) => {
      for (const [collection, id] of changes) if (collection === 'deliveries') told.push(id)
    })
    await restarted.outbox.flush()
    const deliveries = await restarted.records.allOf('deliveries', 'acct_demo')
    expect(deliveries.map((d) => [d.endpoint_id, d.event_type, d.status])).toEqual(
      endpoints.map((endpoint) => [endpoint.id, 'check.created', 'pending']),
    )
    expect((await restarted.records.allOf('events', 'acct_demo'))[0]!.data).toMatchObject({id: pushed.check.id})
    // once: the queue hears of it from the unit that wrote it, and no mark is left to write it again
    expect(told).toEqual(onPostgres ? [] : deliveries.map((d) => d.id))
    expect(await storage.all('fan_outs')).toEqual([])
  })

  it('retention keeps an event whose deliveries are still to be written', async () => {
    const {service} = await serviceForTest({retention: {...DEFAULT_RETENTION, maxEvents: 1}})
    await nineEndpoints(service)
    await service.checks.push('acct_demo', 't1', checkWith([['a', 1, 500]], {version: 1}))
    await service.checks.push('acct_demo', 't1', checkWith([['a', 2, 500]], {version: 2}))
    await service.outbox.close()
    while (total(await service.retention.prune()) > 0);
    // both kept: their deliveries are pending (PostgreSQL) or not yet written (the server's own store)
    expect((await service.context.storage.list('events', 'acct_demo')).length).toBe(2)
  })

  it("a push to 9 endpoints writes no delivery in its own unit on the server's own store", async () => {
    const {service, queued} = await serviceForTest()
    await nineEndpoints(service)
    queued.length = 0
    await service.checks.push('acct_demo', 't1', checkWith([['a', 1, 500]]))
    await service.outbox.flush()
    // on a database other instances share, one unit; on the server's own store the deliveries follow, marked meanwhile
    expect(queued.map(collectionsOf)).toEqual(
      onPostgres
        ? [['checks', 'events', 'deliveries']]
        : [
            ['checks', 'events', 'fan_outs'],
            ['fan_outs', 'deliveries'],
          ],
    )
  })

  it('a read of deliveries right after a push sees them, and an endpoint made after it gets none of it', async () => {
    const {service} = await serviceForTest()
    const first = await nineEndpoints(service)
    await service.checks.push('acct_demo', 't1', checkWith([['a', 1, 500]]))
    await service.endpoints.create('acct_demo', HOOKS)
    const deliveries = await service.records.allOf('deliveries', 'acct_demo')
    expect(deliveries.map((d) => d.endpoint_id)).toEqual(first.map((e) => e.id))
  })

  it('an endpoint under chaos draws once per delivery across the events one fan-out writes', async () => {
    const {service} = await serviceForTest()
    const endpoints = await nineEndpoints(service)
    for (const endpoint of endpoints) await service.endpoints.setChaos(endpoint, {duplicate: 0.5})
    for (let version = 1; version <= 3; version++)
      await service.checks.push('acct_demo', 't1', checkWith([['a', version, 500]], {version}))
    await service.outbox.flush()
    const stored = await service.records.allOf('webhook_endpoints', 'acct_demo')
    expect(stored.map((endpoint) => endpoint.chaos?.drawn)).toEqual(Array(9).fill(3))
    expect((await service.records.allOf('deliveries', 'acct_demo')).length).toBe(27)
  })

  it("two accounts' endpoints of one chosen id keep their own chaos draws when one fan-out writes both", async () => {
    const {service} = await serviceForTest()
    const scratch = await service.accounts.createScratch('acct_demo')
    const accounts = ['acct_demo', scratch.id]
    for (const account of accounts) {
      const chosen = {...HOOKS, id: 'we_same', secret: 'whsec_same_id_chaos_0123456789'}
      const endpoint = await service.endpoints.createWithSecret(account, chosen)
      await service.endpoints.setChaos(endpoint, {duplicate: 0.5})
      for (let i = 0; i < 8; i++) await service.endpoints.create(account, HOOKS)
    }
    for (const account of accounts) await service.checks.push(account, 't1', checkWith([['a', 1, 500]]))
    await service.outbox.flush()
    for (const account of accounts) {
      const stored = await service.records.allOf('webhook_endpoints', account)
      expect(stored.find((endpoint) => endpoint.id === 'we_same')?.chaos?.drawn).toBe(1)
    }
  })
})
