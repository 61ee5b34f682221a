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
  const [unseen] = fanOut(event, [endpoint], clock.now())
  await store.commit([put('events', event.id, event), put('deliveries', unseen!.id, unseen!)])
  await service.outbox.commit((tx) => service.outbox.publish(tx, [{...event, id: `${event.id}_2`}]))
  await receiver.waitFor(1)
  await dispatcher.idle()
  expect(receiver.received.map((r) => JSON.parse(r.body).id)).toEqual([`${event.id}_2`])
  expect((await service.deliveries.get(unseen!.id))?.status).toBe('pending')
})
