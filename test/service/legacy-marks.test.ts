import {cp} from 'node:fs/promises'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {createServiceLayer} from '../../src/service/index.js'
import {MemoryStorage} from '../../src/service/memory-storage.js'
import {Store} from '../../src/store/store.js'
import {SchedulerClock} from '../../src/webhooks/clock.js'
import {makeTempDir} from '../helpers/simulator.js'

/**
 * Data dirs as tablepay wrote them while fan-out marks were settings rows
 * (`fan-out:evt_…`, up to commit 651c391): two pushes, of t1 then t2, to nine
 * endpoints, each leaving a mark, then a stop before either fan-out ran. A
 * clean stop left the marks in settings.json; a kill, in the journal only.
 */
const FIXTURES = 'test/fixtures/fan-out-marks'
/** When the pushes were made, on the scheduler clock: their deliveries fall due then. */
const PUSHED = '2026-11-24T12:00:01.000Z'

/** The data dir `dir`, started as `serve` starts it: its store, the service, and what the delivery queue is told. */
async function start(dir: string) {
  const store = await Store.open({dir})
  const storage = new MemoryStorage(store)
  const service = createServiceLayer({
    storage,
    baseUrl: 'http://127.0.0.1:4747',
    now: () => PUSHED,
    clock: new SchedulerClock(1, 0, () => Date.parse(PUSHED)),
    strictUrls: false,
  })
  const told: string[] = []
  await service.deliveries.attach((changes) => {
    for (const [collection, id] of changes) if (collection === 'deliveries') told.push(id)
  })
  return {store, storage, service, told}
}

describe('a data dir whose marks are settings rows (docs/storage.md, "Deferred fan-out")', () => {
  for (const left of ['stopped', 'killed']) {
    it(`left ${left}: a start writes the deliveries of its marked events once, in their order, and keeps no mark`, async () => {
      const dir = await makeTempDir()
      await cp(join(FIXTURES, left), dir, {recursive: true})
      const {store, storage, service, told} = await start(dir)
      await service.outbox.flush()
      const events = await storage.list('events', 'acct_demo')
      const endpoints = await storage.list('webhook_endpoints', 'acct_demo')
      const deliveries = await storage.list('deliveries', 'acct_demo')
      expect(events.map((event) => (event.data as {external_id: string}).external_id)).toEqual(['t1', 't2'])
      expect(endpoints).toHaveLength(9)
      expect(deliveries.map((d) => [d.event_id, d.endpoint_id, d.status, d.next_attempt_at])).toEqual(
        events.flatMap((event) => endpoints.map((endpoint) => [event.id, endpoint.id, 'pending', PUSHED])),
      )
      expect(told).toEqual(deliveries.map((d) => d.id))
      expect([await storage.all('settings'), await storage.all('fan_outs')]).toEqual([[], []])
      await service.outbox.close()
      await store.close()

      // and a restart writes none again
      const again = await start(dir)
      await again.service.outbox.flush()
      expect((await again.storage.list('deliveries', 'acct_demo')).map((d) => d.id)).toEqual(told)
      expect(again.told).toEqual([])
      await again.service.outbox.close()
      await again.store.close()
    })
  }

  it('a start stopped before the fan-outs ran keeps the marks, moved to their collection', async () => {
    const dir = await makeTempDir()
    await cp(join(FIXTURES, 'killed'), dir, {recursive: true})
    const {store, storage, service} = await start(dir)
    // stopped before the background unit: the marks were moved at start, and nothing else happened
    await service.outbox.close()
    const events = await storage.list('events', 'acct_demo')
    expect(await storage.all('settings')).toEqual([])
    expect(await storage.all('fan_outs')).toEqual(
      events.map((event) => ({id: event.id, account_id: '', due: Date.parse(PUSHED)})),
    )
    expect(await storage.list('deliveries', 'acct_demo')).toEqual([])
    await store.close()

    const again = await start(dir)
    await again.service.outbox.flush()
    expect(await again.storage.list('deliveries', 'acct_demo')).toHaveLength(18)
    await again.service.outbox.close()
    await again.store.close()
  })
})
