import {describe, expect, it} from 'vitest'
import {checkWith} from '../helpers/checks.js'
import {serviceForTest} from './service.js'

describe('service.endpoints', () => {
  it('deleting an endpoint cancels its pending deliveries in the same unit, and the queue hears of it', async () => {
    const {service, queued} = await serviceForTest()
    const endpoint = await service.endpoints.create('acct_demo', {
      url: 'http://127.0.0.1:9/hooks',
      event_types: ['check.created'],
    })
    await service.checks.push('acct_demo', 't1', checkWith([['a', 1, 500]]))
    await service.outbox.flush()
    queued.length = 0
    await service.endpoints.delete(endpoint)
    expect(await service.records.get('webhook_endpoints', endpoint.id)).toBeUndefined()
    expect((await service.records.allOf('deliveries', 'acct_demo')).map((d) => d.status)).toEqual(['canceled'])
    expect(queued[0]!.map(([collection, , record]) => [collection, record === null ? null : 'put'])).toEqual([
      ['webhook_endpoints', null],
      ['deliveries', 'put'],
    ])
  })

  it('a new endpoint receives only the events made after it', async () => {
    const {service} = await serviceForTest()
    await service.checks.push('acct_demo', 't1', checkWith([['a', 1, 500]]))
    await service.endpoints.create('acct_demo', {url: 'http://127.0.0.1:9/hooks', event_types: ['check.created']})
    expect(await service.records.allOf('deliveries', 'acct_demo')).toEqual([])
  })
})
