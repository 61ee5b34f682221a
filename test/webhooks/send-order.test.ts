import {describe, expect, it} from 'vitest'
import {SendOrder} from '../../src/webhooks/send-order.js'

/** Whether `promise` has settled once the microtasks queued so far have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false
  void promise.then(() => (done = true))
  await new Promise((resolve) => setImmediate(resolve))
  return done
}

describe('SendOrder', () => {
  it("an endpoint's attempt sends only once the one started before it has", async () => {
    const order = new SendOrder()
    const first = order.next('we_a')
    const second = order.next('we_a')
    const third = order.next('we_a')
    expect(await settled(first.turn)).toBe(true)
    expect(await settled(second.turn)).toBe(false)
    first.sent()
    expect(await settled(second.turn)).toBe(true)
    expect(await settled(third.turn)).toBe(false)
    second.sent()
    expect(await settled(third.turn)).toBe(true)
  })

  it('endpoints do not wait for each other, and one that gave up lets the next go as one that sent does', async () => {
    const order = new SendOrder()
    const a = order.next('we_a')
    order.next('we_a')
    expect(await settled(order.next('we_b').turn)).toBe(true)
    a.sent()
    a.sent() // called again when the attempt ends: harmless
    const later = order.next('we_c')
    expect(await settled(later.turn)).toBe(true)
  })

  it('once the last attempt has sent, the next one goes at once', async () => {
    const order = new SendOrder()
    order.next('we_a').sent()
    expect(await settled(order.next('we_a').turn)).toBe(true)
  })
})
