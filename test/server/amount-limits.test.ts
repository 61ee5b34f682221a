import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import {MAX_CENTS} from '../../src/domain/money.js'
import {checkWith} from '../helpers/checks.js'
import {type Answer, startTestServer, type TestServer} from '../helpers/simulator.js'

let sim: TestServer
beforeAll(async () => {
  sim = await startTestServer({memory: true})
})
afterAll(() => sim.close())
beforeEach(async () => {
  await sim.api('POST', '/v1/sim/reset')
})

const push = (body: unknown) => sim.api('PUT', '/v1/checks/external/big', {body})
const post = (path: string, body: unknown) => sim.api('POST', path, {body})

/** A 422 validation_failed whose details name `path`, with nothing changed. */
function expectRefused(answer: Answer, path: string) {
  expect(answer.status, answer.text).toBe(422)
  expect(answer.body.error.code).toBe('validation_failed')
  expect(answer.body.error.details).toContainEqual({path, message: expect.stringContaining(String(MAX_CENTS))})
}

/** An open check whose total is exactly the limit: one item at MAX_CENTS, no tax. */
async function checkAtLimit() {
  const created = await push({
    ...checkWith([['a', 1, MAX_CENTS]]),
    totals: {subtotal_cents: MAX_CENTS, tax_cents: 0, total_cents: MAX_CENTS},
  })
  expect(created.status, created.text).toBe(201)
  return created.body
}

describe(`every amount and every sum is at most ${MAX_CENTS} cents`, () => {
  it('a push with a price, a line (quantity × price) or a total above the limit is refused, naming the field', async () => {
    expectRefused(await push(checkWith([['a', 1, Number.MAX_SAFE_INTEGER]])), 'items.0.price_cents')
    // each factor is fine, their product is not
    expectRefused(await push(checkWith([['a', 1000, MAX_CENTS / 100]])), 'items.0.price_cents')
    const totals = {subtotal_cents: MAX_CENTS, tax_cents: 1, total_cents: MAX_CENTS + 1}
    expectRefused(await push({...checkWith([['a', 1, 100]]), totals}), 'totals.total_cents')
    expect((await sim.api('GET', '/v1/checks')).body.data).toEqual([])
  })

  it('a payment of 2^53−1 with a tip of 2^53−2 is refused, and so is any payment whose amount plus tip passes the limit', async () => {
    const check = await checkAtLimit()
    expectRefused(
      await post(`/v1/sim/checks/${check.id}/payments`, {
        amount_cents: Number.MAX_SAFE_INTEGER,
        tip_cents: Number.MAX_SAFE_INTEGER - 1,
      }),
      'amount_cents',
    )
    expectRefused(
      await post(`/v1/sim/checks/${check.id}/payments`, {amount_cents: MAX_CENTS, tip_cents: 1}),
      'tip_cents',
    )
    // an amount past the limit alone is the amount's fault, with a tip or without: the tip is not named
    for (const tip of [{}, {tip_cents: 1}]) {
      const alone = await post(`/v1/sim/checks/${check.id}/payments`, {amount_cents: MAX_CENTS + 1, ...tip})
      expectRefused(alone, 'amount_cents')
      expect(alone.body.error.details.map((detail: {path: string}) => detail.path)).toEqual(['amount_cents'])
    }
    expect((await sim.api('GET', `/v1/checks/${check.id}`)).body).toMatchObject({amount_paid_cents: 0})
  })

  it('at the limit everything is accepted, and a refund computes exact figures', async () => {
    const check = await checkAtLimit()
    const paid = await post(`/v1/sim/checks/${check.id}/payments`, {amount_cents: MAX_CENTS - 1, tip_cents: 1})
    expect(paid.status, paid.text).toBe(201)
    expectRefused(await post(`/v1/sim/payments/${paid.body.id}/refund`, {amount_cents: MAX_CENTS + 1}), 'amount_cents')
    const refunded = await post(`/v1/sim/payments/${paid.body.id}/refund`, {})
    expect(refunded.body).toMatchObject({
      status: 'refunded',
      amount_refunded_cents: MAX_CENTS,
      refunds: [{amount_cents: MAX_CENTS}],
    })
    expect((await sim.api('GET', `/v1/checks/${check.id}`)).body).toMatchObject({
      amount_paid_cents: 0,
      amount_due_cents: MAX_CENTS,
    })
  })

  it("the limit is in the OpenAPI document as each amount's maximum", async () => {
    const doc = (await sim.api('GET', '/v1/openapi.json', {key: null})).body
    const payment = doc.paths['/sim/checks/{id}/payments'].post.requestBody.content['application/json'].schema
    const schema = payment.$ref ? doc.components.schemas[payment.$ref.split('/').pop()] : payment
    expect(schema.properties.amount_cents).toMatchObject({maximum: MAX_CENTS})
    expect(schema.properties.tip_cents).toMatchObject({maximum: MAX_CENTS})
  })
})
