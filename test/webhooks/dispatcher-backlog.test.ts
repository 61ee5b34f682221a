import {afterEach, describe, expect, it} from 'vitest'
import {fanOut} from '../../src/domain/deliveries.js'
import type {EventRecord, WebhookEndpointRecord} from '../../src/domain/records.js'
import type {UnitOfWork} from '../../src/service/index.js'
import {Dispatcher} from '../../src/webhooks/dispatcher.js'
import {startReceiver} from '../helpers/receiver.js'
import {realTimeService} from '../service/service.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

const NOW = new Date().toISOString()
const BACKLOG = 50_000

const endpoint = (id: string, url: string): WebhookEndpointRecord => ({
  id,
  object: 'webhook_endpoint',
  url,
  event_types: ['check.created'],
  description: null,
  status: 'enabled',
  created_at: NOW,
  updated_at: NOW,
  account_id: 'acct_demo',
  secret: 'whsec_dispatcher_backlog_test_secret',
  consecutive_dead: 0,
})

const event = (id: string): EventRecord => ({
  id,
  object: 'event',
  type: 'check.created',
  created_at: NOW,
  data: {},
  account_id: 'acct_demo',
})

/** A dispatcher over the service on an in-memory store whose endpoint `we_hung` has `BACKLOG` deliveries due at `dueAt`, sent to a receiver that never answers. */
async function backlog(dueAt: (now: number) => number, timeoutMs = 60_000) {
  const hung = await startReceiver(() => 'hang')
  const {store, clock, service} = await realTimeService()
  const dispatcher = new Dispatcher(service, clock, {timeoutMs})
  await dispatcher.start()
  const commit = (work: (tx: UnitOfWork) => void) => service.outbox.unit({reads: []}, async (tx) => work(tx))
  // the receiver goes first: closing it ends the attempts out, which the dispatcher waits for
  cleanup.push(
    () => store.close(),
    () => dispatcher.close(),
    () => hung.close(),
  )
  const target = endpoint('we_hung', hung.url)
  const evt = event('evt_backlog')
  const deliveries = Array.from({length: BACKLOG}, () => fanOut(evt, [target], dueAt(clock.now())).deliveries[0]!)
  await commit((tx) => {
    tx.put('webhook_endpoints', target.id, target)
    tx.put('events', evt.id, evt)
    for (const d of deliveries) tx.put('deliveries', d.id, d)
  })
  /** Commits one more delivery due now for `to`, and says how many entries the dispatcher touched for it. */
  const commitOne = async (to: WebhookEndpointRecord) => {
    const before = dispatcher.visits
    const [delivery] = fanOut(evt, [to], clock.now()).deliveries
    await commit((tx) => tx.put('deliveries', delivery!.id, delivery!))
    return dispatcher.visits - before
  }
  return {hung, commit, dispatcher, commitOne}
}

describe('dispatcher work with a backlog', () => {
  it(`a commit touches a few entries, not the ${BACKLOG} due deliveries waiting on a hung receiver`, async () => {
    const {hung, commit, commitOne} = await backlog((now) => now)
    await hung.waitFor(8)
    const other = await startReceiver()
    cleanup.push(() => other.close())
    const healthy = endpoint('we_ok', other.url)
    await commit((tx) => tx.put('webhook_endpoints', healthy.id, healthy))
    // log2(50,000) is about 16: a heap push and pop, the endpoint's queue, its turn
    expect(await commitOne(healthy)).toBeLessThan(100)
    expect(await commitOne(endpoint('we_hung', hung.url))).toBeLessThan(100)
    await other.waitFor(1)
  })

  it(`a commit touches a few entries when ${BACKLOG} deliveries are due later`, async () => {
    const {commitOne, hung} = await backlog((now) => now + 3600_000)
    expect(await commitOne(endpoint('we_hung', hung.url))).toBeLessThan(100)
  })

  it('each finished attempt touches a few entries, however many wait behind it', async () => {
    const {hung, dispatcher} = await backlog((now) => now, 100)
    await hung.waitFor(8)
    const before = dispatcher.visits
    // the first 8 time out and the next 8 start: 8 finished attempts, 8 started
    await hung.waitFor(16)
    expect((dispatcher.visits - before) / 8).toBeLessThan(100)
  })
})
