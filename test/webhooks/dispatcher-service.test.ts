import {afterEach, expect, it} from 'vitest'
import {fanOut} from '../../src/domain/deliveries.js'
import {newEvent} from '../../src/domain/events.js'
import {put} from '../../src/store/store.js'
import {Background} from '../../src/webhooks/background.js'
import {wallClockIso} from '../../src/webhooks/clock.js'
import {Dispatcher} from '../../src/webhooks/dispatcher.js'
import type {DispatcherOptions} from '../../src/webhooks/dispatcher-service.js'
import {startReceiver} from '../helpers/receiver.js'
import {realTimeService} from '../service/service.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

type Ledger = Awaited<ReturnType<typeof realTimeService>>['service']['deliveries']

/** The service's deliveries, whose `method` waits for `before` before it runs and calls `after` once it has. */
function around(
  ledger: Ledger,
  method: 'claim' | 'recordAttempt',
  {before = async () => {}, after = () => {}}: {before?: () => Promise<void>; after?: () => void},
): Ledger {
  return new Proxy(ledger, {
    get(target, name) {
      const value = Reflect.get(target, name, target)
      if (typeof value !== 'function') return value
      const bound = value.bind(target)
      if (name !== method) return bound
      return async (...args: unknown[]) => {
        await before()
        const result = await bound(...args)
        after()
        return result
      }
    },
  })
}

/**
 * A receiver answering as `respond` does, the service on a fresh store, a dispatcher started on it with
 * `settings` (its deliveries as `ledger` wraps them, paced by `background`) and an endpoint of acct_demo to the
 * receiver, all closed after the test.
 */
async function dispatching(
  options: {
    respond?: Parameters<typeof startReceiver>[0]
    ledger?: (deliveries: Ledger) => Ledger
    settings?: DispatcherOptions
    background?: Background
  } = {},
) {
  const receiver = await startReceiver(options.respond)
  const {store, clock, service} = await realTimeService()
  const deliveries = options.ledger?.(service.deliveries) ?? service.deliveries
  const background = options.background ?? service.background
  const dispatcher = new Dispatcher({...service, deliveries, background}, clock, options.settings)
  await dispatcher.start()
  cleanup.push(
    () => store.close(),
    () => dispatcher.close(),
    () => receiver.close(),
  )
  const endpoint = await service.endpoints.create('acct_demo', {url: receiver.url, event_types: ['check.created']})
  return {receiver, store, clock, service, dispatcher, endpoint}
}

/** `count` new check.created events of acct_demo, published in one unit. */
async function publish(service: Awaited<ReturnType<typeof realTimeService>>['service'], count: number) {
  const events = Array.from({length: count}, () =>
    newEvent('acct_demo', 'check.created', {object: 'check'}, wallClockIso()),
  )
  await service.outbox.unit({reads: []}, (tx) => service.outbox.publish(tx, events))
}

it('the dispatcher sends what the service tells it of, and holds no subscription to the store', async () => {
  const {receiver, store, clock, service, dispatcher, endpoint} = await dispatching()
  const event = newEvent('acct_demo', 'check.created', {object: 'check'}, wallClockIso())
  // written past the service: nobody tells the dispatcher, so it is not sent
  const [unseen] = fanOut(event, [endpoint], clock.now()).deliveries
  await store.commit([put('events', event.id, event), put('deliveries', unseen!.id, unseen!)])
  await service.outbox.unit({reads: []}, (tx) => service.outbox.publish(tx, [{...event, id: `${event.id}_2`}]))
  await receiver.waitFor(1)
  await dispatcher.idle()
  expect(receiver.received.map((r) => JSON.parse(r.body).id)).toEqual([`${event.id}_2`])
  expect(store.tables.deliveries.get(unseen!.id)?.status).toBe('pending')
})

it("an endpoint's deliveries are sent in due order even when the reads before each send end out of order", async () => {
  // the claims of the first five attempts end last first, as claims on PostgreSQL may
  const held: (() => void)[] = []
  const {receiver, service, dispatcher} = await dispatching({
    ledger: (deliveries) =>
      around(deliveries, 'claim', {
        before: async () => {
          if (held.length < 5) await new Promise<void>((resolve) => held.push(resolve))
        },
      }),
  })
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

it("an endpoint's place frees when its receiver answers: attempts go on while the first ones wait to be recorded", async () => {
  // no attempt is recorded until every one of them has reached the receiver
  let recordsGo!: () => void
  const records = new Promise<void>((resolve) => (recordsGo = resolve))
  const {receiver, store, service, dispatcher} = await dispatching({
    ledger: (deliveries) => around(deliveries, 'recordAttempt', {before: () => records}),
  })
  // let go before the dispatcher closes, should the attempts never all arrive
  cleanup.push(async () => recordsGo())
  await publish(service, 12)
  // with its 8 places held until each record, the endpoint would be sent 8 and no more
  await expect.poll(() => receiver.received.length, {timeout: 10_000}).toBe(12)
  recordsGo()
  await dispatcher.idle()
  const deliveries = [...store.tables.deliveries.all()]
  expect(deliveries.map((delivery) => [delivery.status, delivery.attempts.length])).toEqual(
    Array(12).fill(['succeeded', 1]),
  )
})

it("a duplicate drawn by chaos keeps its endpoint's place until it is sent: never more than 8 requests open", async () => {
  // the first attempts are answered at once, the duplicates never
  const {receiver, service, endpoint} = await dispatching({
    respond: ({headers}) => (headers['x-tablepay-delivery-attempt'] === '1' ? 200 : 'hang'),
  })
  await service.endpoints.setChaos(endpoint, {duplicate: 1, seed: 1})
  await publish(service, 12)
  // 8 first attempts and their 8 duplicates, which hold the endpoint's places: no ninth first attempt
  await receiver.waitFor(16)
  const attempts = receiver.received.map((request) => request.headers['x-tablepay-delivery-attempt'])
  expect(attempts.filter((attempt) => attempt === '1')).toHaveLength(8)
})

/**
 * 20 deliveries to an endpoint whose receiver holds every answer until `answersGo`, sent by a dispatcher
 * whose attempts claim 8 ahead of the endpoint's places: once `claimed` is 16, each claim has gone on to
 * send if it could. `sent` lists the events as the dispatcher sends them; `mostOpen` is the most requests
 * it had open at once.
 */
async function aheadOfHeldAnswers(settings: DispatcherOptions = {}) {
  let answersGo!: () => void
  const answers = new Promise<void>((resolve) => (answersGo = resolve))
  const counts = {claimed: 0, open: 0, mostOpen: 0}
  const started = await dispatching({
    settings: {ahead: 8, ...settings},
    respond: () => answers.then(() => 200),
    ledger: (deliveries) => around(deliveries, 'claim', {after: () => counts.claimed++}),
  })
  cleanup.push(async () => answersGo())
  const {dispatcher} = started
  const sent: string[] = []
  const send = dispatcher.send.bind(dispatcher)
  dispatcher.send = (endpoint, event, body, attempt) => {
    sent.push(event.id)
    counts.mostOpen = Math.max(counts.mostOpen, ++counts.open)
    return send(endpoint, event, body, attempt).finally(() => counts.open--)
  }
  await publish(started.service, 20)
  // 8 more claimed while the first 8 wait, their share being 16 of the 32
  await expect.poll(() => counts.claimed, {timeout: 10_000}).toBe(16)
  return {...started, answersGo, counts, sent}
}

it("attempts ahead claim while an endpoint's 8 places wait on its receiver, and send in due order as places free", async () => {
  const {store, dispatcher, answersGo, counts, sent} = await aheadOfHeldAnswers()
  expect([sent.length, counts.mostOpen]).toEqual([8, 8])
  answersGo()
  await expect.poll(() => sent.length, {timeout: 10_000}).toBe(20)
  await dispatcher.idle()
  expect(counts.mostOpen).toBe(8)
  expect(sent).toEqual([...store.tables.events.all()].map((event) => event.id))
})

it('a dispatcher closing sends none of the attempts that wait for a place, and lets those out go: all stay pending', async () => {
  const {store, dispatcher, answersGo, sent} = await aheadOfHeldAnswers()
  const closed = dispatcher.close()
  answersGo()
  await closed
  expect(sent).toHaveLength(8)
  // the 8 out are not recorded, answered or not: each is made again at the next start (docs/api.md, "Webhooks")
  const deliveries = [...store.tables.deliveries.all()]
  expect(deliveries.map(({status, attempts}) => [status, attempts.length])).toEqual(
    deliveries.map(() => ['pending', 0]),
  )
})

it('an attempt that waited for a place sends nothing once its delivery was written again: the newer write is sent once', async () => {
  const {store, service, dispatcher, answersGo, sent} = await aheadOfHeldAnswers()
  // the last delivery claimed, waiting for a place, is retried meanwhile
  const waiting = [...store.tables.deliveries.all()][15]!
  await service.deliveries.retry(waiting)
  answersGo()
  await expect.poll(() => sent.length, {timeout: 10_000}).toBe(20)
  await dispatcher.idle()
  expect(sent.filter((id) => id === waiting.event_id)).toHaveLength(1)
  expect(store.tables.deliveries.get(waiting.id)?.attempts).toHaveLength(1)
})

it('an attempt that waited long for a place sends to its endpoint as it is then: a URL changed meanwhile', async () => {
  // every wait is long: each attempt reads its endpoint again before it sends
  const {service, endpoint, receiver, answersGo} = await aheadOfHeldAnswers({freshMs: 0})
  const moved = await startReceiver()
  cleanup.push(() => moved.close())
  await service.endpoints.update(endpoint, {url: moved.url})
  answersGo()
  await expect.poll(() => receiver.received.length + moved.received.length, {timeout: 10_000}).toBe(20)
  // the 8 sent before the change, at the old URL; the 8 claimed then and the 4 claimed after, at the new one
  expect([receiver.received.length, moved.received.length]).toEqual([8, 12])
})

it("another account's endpoint of the same id does not wait behind this one's receiver, which never answers", async () => {
  const {receiver, service} = await dispatching({respond: () => 'hang'})
  const other = await startReceiver()
  cleanup.push(() => other.close())
  const known = {event_types: ['check.created' as const], secret: 'whsec_same_id_in_two_accounts_0001'}
  await service.endpoints.createWithSecret('acct_demo', {...known, id: 'we_same', url: receiver.url})
  await service.endpoints.createWithSecret('acct_other', {...known, id: 'we_same', url: other.url})
  // acct_demo's deliveries fill its endpoints' places and wait; acct_other's one is made at once
  await publish(service, 12)
  await receiver.waitFor(8)
  const event = newEvent('acct_other', 'check.created', {object: 'check'}, wallClockIso())
  await service.outbox.unit({reads: []}, (tx) => service.outbox.publish(tx, [event]))
  await expect.poll(() => other.received.length, {timeout: 5_000}).toBe(1)
})

it('an advance right after a change whose deliveries are written in the background runs their attempts and retries on the way', async () => {
  const {receiver, service, dispatcher} = await dispatching({respond: () => 500})
  // 9 deliveries: more than a unit writes itself, so they are written just after it (docs/storage.md, "Deferred fan-out")
  await publish(service, 9)
  // asked before the background has written them: the advance waits for them, as every change after it does
  const attempts = await dispatcher.advance(3600)
  // each delivery's attempt now and its retries 1, 5 and 30 minutes later; the next, at 2 h, is past the advance
  expect(attempts).toBe(9 * 4)
  expect(receiver.received).toHaveLength(9 * 4)
  const deliveries = await service.records.allOf('deliveries', 'acct_demo')
  expect(deliveries.map((d) => d.attempts.length)).toEqual(Array(9).fill(4))
})

it('an attempt sent an hour late has its retry an hour later too: overdue retries do not run back to back', async () => {
  const {receiver, service, clock, dispatcher} = await dispatching({respond: () => 500})
  await publish(service, 1)
  await receiver.waitFor(1)
  await dispatcher.idle()
  const [first] = await service.records.allOf('deliveries', 'acct_demo')
  // the clock an hour on, no attempt made meanwhile (as across a stop): attempt 2 is an hour overdue
  clock.moveTo(clock.now() + 3_600_000)
  const before = clock.now()
  // a change starts what is due: the new delivery's attempt, and the overdue one
  await publish(service, 1)
  await receiver.waitFor(3)
  await dispatcher.idle()
  const after = clock.now()
  const late = await service.records.get('deliveries', first!.id)
  expect(late!.attempts).toHaveLength(2)
  // attempt 3 is 5 minutes after attempt 2 was sent, in whole seconds past when it was due
  const next = Date.parse(late!.next_attempt_at!)
  expect(next).toBeGreaterThan(before + 300_000 - 1000)
  expect(next).toBeLessThanOrEqual(after + 300_000)
  expect((next - Date.parse(first!.next_attempt_at!)) % 1000).toBe(0)
})

it('an advance that waits while requests pace the attempts ends once what it waited for is dropped', async () => {
  // requests keep arriving (one came just now, on a clock this test moves): after a burst of 8, none may start
  let now = 0
  const background = new Background(() => now)
  background.noteRequest()
  const {receiver, service, dispatcher, endpoint} = await dispatching({respond: () => 500, background})
  await publish(service, 9)
  const advanced = dispatcher.advance(60)
  await receiver.waitFor(8)
  const attempted = async () =>
    (await service.records.allOf('deliveries', 'acct_demo')).filter((d) => d.attempts.length)
  // the 8 recorded: no attempt is out
  await expect.poll(async () => (await attempted()).length).toBe(8)
  // the ninth attempt waits for its turn, and the retries of the 8 are due on the way: the endpoint's deletion
  // drops them all. A millisecond later the pace lets one start, and finds none: the advance ends
  await service.endpoints.delete(endpoint)
  now = 1
  expect(await advanced).toBe(8)
  // an advance that hangs fails here, sooner than at the run's test timeout
}, 15_000)

it('an attempt out to an endpoint deleted and made again under its chosen id counts for neither: no chaos duplicate follows', async () => {
  let answer!: () => void
  const answered = new Promise<void>((resolve) => (answer = resolve))
  const {receiver, service, dispatcher, endpoint} = await dispatching({respond: () => answered.then(() => 200)})
  // the endpoint made for every test goes: the event's one delivery is to the chosen id
  await service.endpoints.delete(endpoint)
  const chosen = {id: 'we_ci', url: receiver.url, event_types: ['check.created' as const]}
  const first = await service.endpoints.createWithSecret('acct_demo', {
    ...chosen,
    secret: 'whsec_chosen_first_0123456789',
  })
  await service.endpoints.setChaos(first, {duplicate: 1, reorder_window_s: 0})
  await publish(service, 1)
  await receiver.waitFor(1)
  await service.endpoints.delete(first)
  const again = await service.endpoints.createWithSecret('acct_demo', {
    ...chosen,
    secret: 'whsec_chosen_again_0123456789',
  })
  answer()
  await expect.poll(async () => (await service.records.allOf('deliveries', 'acct_demo'))[0]?.attempts.length).toBe(1)
  await dispatcher.idle()
  // the success was the deleted endpoint's: the new one's chaos and record are its own
  expect(receiver.received).toHaveLength(1)
  expect(await service.records.allOf('webhook_endpoints', 'acct_demo')).toEqual([again])
})
