import {describe, expect, it} from 'vitest'
import {SendOrder} from '../../src/webhooks/send-order.js'
import {PER_ENDPOINT} from '../../src/webhooks/scheduler.js'

/** Whether `promise` has settled once the microtasks queued so far have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false
  void promise.then(() => (done = true))
  await new Promise((resolve) => setImmediate(resolve))
  return done
}

describe('SendOrder', () => {
  it("an endpoint's attempt sends only once the one started before it has", async () => {
    const order = new SendOrder(PER_ENDPOINT)
    const first = order.next('we_a')
    const second = order.next('we_a')
    const third = order.next('we_a')
    expect(await settled(first.ready)).toBe(true)
    expect(await settled(second.ready)).toBe(false)
    first.sent()
    expect(await settled(second.ready)).toBe(true)
    expect(await settled(third.ready)).toBe(false)
    second.sent()
    expect(await settled(third.ready)).toBe(true)
  })

  it('endpoints do not wait for each other, and one that gave up lets the next go as one that sent does', async () => {
    const order = new SendOrder(PER_ENDPOINT)
    const a = order.next('we_a')
    const next = order.next('we_a')
    expect(await settled(order.next('we_b').ready)).toBe(true)
    a.done()
    a.done() // called again when the attempt ends: harmless
    expect(await settled(next.ready)).toBe(true)
  })

  it('one that gave up before its turn does not let the ones after it pass the one before it', async () => {
    const order = new SendOrder(PER_ENDPOINT)
    const first = order.next('we_a')
    const second = order.next('we_a')
    const third = order.next('we_a')
    second.done()
    expect(await settled(third.ready)).toBe(false)
    first.sent()
    expect(await settled(third.ready)).toBe(true)
  })

  it("at most `places` requests wait on an endpoint's receiver: the next sends when an answer frees a place", async () => {
    const order = new SendOrder(2)
    const [a, b, c, d] = [1, 2, 3, 4].map(() => order.next('we_a'))
    for (const turn of [a!, b!]) {
      expect(await settled(turn.ready)).toBe(true)
      turn.sent()
    }
    expect(await settled(c!.ready)).toBe(false)
    b!.done()
    expect(await settled(c!.ready)).toBe(true)
    c!.sent()
    expect(await settled(d!.ready)).toBe(false)
    a!.done()
    expect(await settled(d!.ready)).toBe(true)
    // another endpoint has places of its own
    expect(await settled(order.next('we_b').ready)).toBe(true)
  })

  it('once the last attempt has its answer, the next one goes at once', async () => {
    const order = new SendOrder(1)
    const turn = order.next('we_a')
    turn.sent()
    turn.done()
    turn.done()
    expect(await settled(order.next('we_a').ready)).toBe(true)
    expect(await settled(order.next('we_a').ready)).toBe(false)
  })
})
