import {afterEach, expect, it} from 'vitest'
import {fanOut} from '../../src/domain/deliveries.js'
import {newEvent} from '../../src/domain/events.js'
import {put} from '../../src/store/store.js'
import {wallClockIso} from '../../src/webhooks/clock.js'
import {Dispatcher} from '../../src/webhooks/dispatcher.js'
import {startReceiver} from '../helpers/receiver.js'
import {realTimeService} from '../service/service.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

it('the dispatcher sends what the service tells it of, and holds no subscription to the store', async () => {
  const receiver = await startReceiver()
  const {store, clock, service} = await realTimeService()
  const dispatcher = new Dispatcher(service, clock)
  await dispatcher.start()
  cleanup.push(
    () => store.close(),
    () => dispatcher.close(),
    () => receiver.close(),
  )
  const endpoint = await service.endpoints.create('acct_demo', {url: receiver.url, event_types: ['check.created']})
  const event = newEvent('acct_demo', 'check.created', {object: 'check'}, wallClockIso())
  // written past the service: nobody tells the dispatcher, so it is not sent
  const [unseen] = fanOut(event, [endpoint], clock.now()).deliveries
  await store.commit([put('events', event.id, event), put('deliveries', unseen!.id, unseen!)])
  await service.outbox.unit({reads: []}, (tx) => service.outbox.publish(tx, [{...event, id: `${event.id}_2`}]))
  await receiver.waitFor(1)
  await dispatcher.idle()
  expect(receiver.received.map((r) => JSON.parse(r.body).id)).toEqual([`${event.id}_2`])
  expect((await service.deliveries.get(unseen!.id))?.status).toBe('pending')
})

it("an endpoint's deliveries are sent in due order even when the reads before each send end out of order", async () => {
  const receiver = await startReceiver()
  const {store, clock, service} = await realTimeService()
  // the claims of the first five attempts end last first, as claims on PostgreSQL may
  const held: (() => void)[] = []
  const ledger = new Proxy(service.deliveries, {
    get(target, name) {
      if (name !== 'claim') {
        const value = Reflect.get(target, name, target)
        return typeof value === 'function' ? value.bind(target) : value
      }
      return async (...args: Parameters<typeof target.claim>) => {
        if (held.length < 5) await new Promise<void>((resolve) => held.push(resolve))
        return target.claim(...args)
      }
    },
  })
  const dispatcher = new Dispatcher({...service, deliveries: ledger}, clock)
  await dispatcher.start()
  cleanup.push(
    () => store.close(),
    () => dispatcher.close(),
    () => receiver.close(),
  )
  await service.endpoints.create('acct_demo', {url: receiver.url, event_types: ['check.created']})
  const events = [1, 2, 3, 4, 5].map((n) => ({
    ...newEvent('acct_demo', 'check.created', {object: 'check'}, wallClockIso()),
    id: `evt_order_${n}`,
  }))
  await service.outbox.unit({reads: []}, (tx) => service.outbox.publish(tx, events))
  await expect.poll(() => held.length).toBe(5)
  for (const release of held.reverse()) {
    release()
    // everything this claim lets happen before the next is released
    await new Promise((resolve) => setImmediate(resolve))
  }
  await receiver.waitFor(5)
  await dispatcher.idle()
  expect(receiver.received.map((r) => JSON.parse(r.body).id)).toEqual(events.map((event) => event.id))
})
