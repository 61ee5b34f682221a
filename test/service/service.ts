import {DEFAULT_RETENTION, type RetentionPolicy} from '../../src/domain/retention.js'
import {createServiceLayer, type Change} from '../../src/service/index.js'
import {MemoryStorage} from '../../src/service/memory-storage.js'
import {Store} from '../../src/store/store.js'
import {onTestFinished} from 'vitest'
import {PgStorage} from '../../src/postgres/storage.js'
import type {Storage} from '../../src/service/storage.js'
import {SchedulerClock, wallClockIso} from '../../src/webhooks/clock.js'
import {createTestDatabase, onPostgres} from '../helpers/postgres.js'
import {TEST_SEED} from '../helpers/simulator.js'

export const NOW = '2026-01-02T03:04:05.000Z'

/**
 * The storage a service test runs on: the in-memory store, or in the
 * `postgres` project of vitest.config.ts a fresh database (at `databaseUrl`), closed and dropped
 * when the test ends.
 */
async function storageForTest() {
  const store = await Store.open()
  if (!onPostgres) return {store, storage: new MemoryStorage(store), databaseUrl: undefined}
  const db = await createTestDatabase()
  const storage = await PgStorage.open({url: db.url})
  onTestFinished(async () => {
    await storage.close()
    await db.drop()
  })
  return {store, storage, databaseUrl: db.url}
}

/**
 * The service over a fresh store with the test seed; `queued` collects what
 * the delivery queue is told. The wall clock (`wall.ms`) and the scheduler
 * clock sit at NOW until a test moves them.
 */
export async function serviceForTest({retention}: {retention?: Partial<RetentionPolicy>} = {}) {
  const {store, storage, databaseUrl} = await storageForTest()
  return {store, storage, databaseUrl, ...(await serviceOver(storage, retention))}
}

/** The service over `storage` with the test seed, as `serviceForTest` makes it. */
export async function serviceOver(storage: Storage, retention?: Partial<RetentionPolicy>) {
  const wall = {ms: Date.parse(NOW)}
  const clock = new SchedulerClock(1, 0, () => wall.ms)
  const service = createServiceLayer({
    storage,
    baseUrl: 'http://127.0.0.1:4747',
    now: () => new Date(wall.ms).toISOString(),
    clock,
    strictUrls: false,
    retention: {...DEFAULT_RETENTION, ...retention},
  })
  await service.accounts.seed(TEST_SEED, () => TEST_SEED)
  const queued: Change[][] = []
  await service.deliveries.attach((changes) => queued.push([...changes]))
  return {service, queued, clock, wall}
}

/** The collections a change list touches, in order, with repeats folded: ['checks', 'events', 'deliveries']. */
export const collectionsOf = (changes: readonly Change[]) =>
  changes.map(([collection]) => collection).filter((name, i, all) => name !== all[i - 1])

/** The service over a fresh in-memory store with the test seed, on a real-time scheduler clock: for dispatcher tests. */
export async function realTimeService() {
  const store = await Store.open()
  const clock = new SchedulerClock()
  const service = createServiceLayer({
    storage: new MemoryStorage(store),
    baseUrl: 'http://127.0.0.1',
    now: wallClockIso,
    clock,
    strictUrls: false,
  })
  await service.accounts.seed(TEST_SEED, () => TEST_SEED)
  return {store, clock, service}
}
