import {describe, expect, it} from 'vitest'
import {checkWith} from '../helpers/checks.js'
import {onPostgres} from '../helpers/postgres.js'
import {serviceForTest} from './service.js'

const HOOKS = {url: 'http://127.0.0.1:9/hooks', event_types: ['check.created' as const]}

/** A service whose push of t1 to nine endpoints left its deliveries to a fan-out still queued (on its own store). */
async function fanOutQueued() {
  const {service} = await serviceForTest()
  for (let i = 0; i < 9; i++) await service.endpoints.create('acct_demo', HOOKS)
  await service.checks.push('acct_demo', 't1', checkWith([['a', 1, 500]]))
  return service
}

describe('service.outbox.unit: what a unit reads decides whether it waits for fan-outs (docs/storage.md)', () => {
  it('a unit that reads deliveries runs after the fan-outs queued before it, and sees their deliveries', async () => {
    const service = await fanOutQueued()
    const seen = await service.outbox.unit({reads: ['deliveries']}, (tx) => tx.list('deliveries', 'acct_demo'))
    expect(seen).toHaveLength(9)
  })

  it('a unit that reads endpoints runs after them too: a fan-out draws chaos on the endpoints it reads', async () => {
    const service = await fanOutQueued()
    await service.outbox.unit({reads: ['webhook_endpoints']}, async () => {})
    expect(await service.context.storage.list('deliveries', 'acct_demo')).toHaveLength(9)
  })

  it('a unit that reads nothing a fan-out writes runs at once, on its own store before the fan-out', async () => {
    const service = await fanOutQueued()
    const seen = await service.outbox.unit({reads: ['checks']}, (tx) => tx.list('deliveries', 'acct_demo'))
    // on a database other instances share, the push wrote its deliveries itself
    expect(seen).toHaveLength(onPostgres ? 9 : 0)
    await service.outbox.flush()
    expect(await service.context.storage.list('deliveries', 'acct_demo')).toHaveLength(9)
  })
})
