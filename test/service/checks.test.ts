import {describe, expect, it} from 'vitest'
import {checkWith} from '../helpers/checks.js'
import {collectionsOf, serviceForTest} from './service.js'

describe('service.checks.push', () => {
  it('writes the check, its events and their deliveries in one unit, and tells the delivery queue', async () => {
    const {service, queued} = await serviceForTest()
    const endpoint = await service.endpoints.create('acct_demo', {
      url: 'http://127.0.0.1:9/hooks',
      event_types: ['check.created'],
    })
    queued.length = 0
    const outcome = await service.checks.push('acct_demo', 't1', checkWith([['a', 1, 500]]))
    expect(outcome.result).toBe('created')
    expect(queued).toHaveLength(1)
    expect(collectionsOf(queued[0]!)).toEqual(['checks', 'events', 'deliveries'])
    const [delivery] = await service.records.allOf('deliveries', 'acct_demo')
    expect(delivery).toMatchObject({endpoint_id: endpoint.id, event_type: 'check.created', status: 'pending'})
    expect((await service.records.checkByExternalId('acct_demo', 't1'))?.id).toBe(outcome.check.id)
  })

  it('an unchanged push writes nothing', async () => {
    const {service, queued} = await serviceForTest()
    const body = checkWith([['a', 1, 500]], {version: 1})
    await service.checks.push('acct_demo', 't1', body)
    const events = (await service.records.allOf('events', 'acct_demo')).length
    queued.length = 0
    const again = await service.checks.push('acct_demo', 't1', body)
    expect([again.result, queued, (await service.records.allOf('events', 'acct_demo')).length]).toEqual([
      'unchanged',
      [],
      events,
    ])
  })

  it("a check of one account is not found by another account's external id", async () => {
    const {service} = await serviceForTest()
    await service.checks.push('acct_demo', 't1', checkWith([['a', 1, 500]]))
    expect(await service.records.checkByExternalId('acct_other', 't1')).toBeUndefined()
  })
})
