import {describe, expect, it} from 'vitest'
import type {CheckRecord} from '../../src/domain/records.js'
import {checkWith} from '../helpers/checks.js'
import {collectionsOf, serviceForTest} from './service.js'

async function withCheck() {
  const test = await serviceForTest()
  await test.service.endpoints.create('acct_demo', {
    url: 'http://127.0.0.1:9/hooks',
    event_types: ['payment.succeeded', 'check.updated'],
  })
  const {check} = await test.service.checks.push('acct_demo', 't1', checkWith([['a', 2, 500]]))
  test.queued.length = 0
  return {...test, check: check as CheckRecord}
}

describe('service.guests', () => {
  it('a claim writes the check and the claim with their events in one unit: 201', async () => {
    const {service, check, queued} = await withCheck()
    const answer = await service.guests.claim(check, {items: [{external_id: 'a', quantity: 1}]})
    expect([answer.status, answer.replayed]).toEqual([201, false])
    expect(collectionsOf(queued[0]!).slice(0, 3)).toEqual(['checks', 'claims', 'events'])
    expect((await service.records.get('claims', answer.body.id))?.check_id).toBe(check.id)
  })

  it('a payment with an Idempotency-Key is made once: the replay answers the same payment', async () => {
    const {service, check} = await withCheck()
    const request = {key: 'pay-1', scope: 'api', hash: 'same'}
    const first = await service.guests.pay(check, {amount_cents: 300}, request)
    const again = await service.guests.pay(check, {amount_cents: 300}, request)
    expect([again.replayed, again.body.id]).toEqual([true, first.body.id])
    expect(await service.records.allOf('payments', 'acct_demo')).toHaveLength(1)
  })

  it('a refund answers 200 with the payment that lists it', async () => {
    const {service, check} = await withCheck()
    const paid = await service.guests.pay(check, {amount_cents: 300})
    const payment = (await service.records.get('payments', paid.body.id))!
    const refunded = await service.guests.refund(payment, {amount_cents: 100})
    expect([refunded.status, refunded.body.amount_refunded_cents, refunded.body.refunds.length]).toEqual([200, 100, 1])
  })

  it('an action on a check removed since it was found is refused and writes nothing', async () => {
    const {service, check} = await withCheck()
    await service.sim.reset('acct_demo')
    await expect(service.guests.leaveFeedback(check, {rating: 5})).rejects.toThrow(
      `No check ${check.id} in this account.`,
    )
    expect(await service.records.allOf('feedback', 'acct_demo')).toEqual([])
  })

  it('an action on a check whose account was deleted since it was found is refused as the key now is: 401', async () => {
    const {service} = await serviceForTest()
    const scratch = await service.accounts.createScratch('acct_demo')
    const {check} = await service.checks.push(scratch.id, 't1', {
      ...checkWith([['a', 2, 500]]),
      location_id: scratch.locations[0]!.id,
    })
    await service.accounts.deleteScratch('acct_demo', scratch.id)
    for (const act of [
      () => service.guests.claim(check, {items: [{external_id: 'a', quantity: 1}]}),
      () => service.guests.pay(check, {amount_cents: 100}),
      () => service.guests.leaveFeedback(check, {rating: 5}),
    ])
      await expect(act()).rejects.toMatchObject({code: 'unauthenticated', status: 401})
  })
})
