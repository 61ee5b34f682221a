import type {Seed} from '../domain/seed-schema.js'
import type {SeededAccount} from '../domain/seeded-account.js'
import {DEFAULT_RETENTION, type RetentionPolicy} from '../domain/retention.js'
import {createServiceLayer, type Service, type Storage} from '../service/index.js'
import {Pruner} from '../service/retention.js'
import {shareRequests} from '../service/shared-requests.js'
import {MemoryStorage} from '../service/memory-storage.js'
import {defaultSeed, parseSeed} from '../store/seed.js'
import {Store} from '../store/store.js'
import {SchedulerClock, wallClockIso} from '../webhooks/clock.js'
import {Dispatcher} from '../webhooks/dispatcher.js'
import {createApp} from './app.js'
import {importAtStart} from './snapshot-imports.js'
import {readSeedFile} from './start-files.js'
import type {SnapshotDocument} from '../domain/snapshot-document.js'
import {StreamHub} from './internal/event-stream.js'
import type {AccessLine} from '../domain/request-log.js'
import type {Limits} from '../domain/limits.js'

/** What shapes the service whatever carries it: a port (`serve`, `startSimulator`) or msw. */
export interface ServiceOptions {
  /** Accounts, locations and keys to add; checked like a seed file. */
  seed?: Seed
  /** A seed file (`--seed`); ignored when `seed` is given. */
  seedFile?: string
  /** Seconds to wait after each failed attempt (default 1m, 5m, 30m, 2h, 8h, 24h: docs/api.md, "Webhooks"). */
  retrySchedule?: number[]
  /** Scheduler clock speed: 60 makes a minute pass in a second. */
  timeScale?: number
  /** Dead deliveries in a row that disable an endpoint (default 10). */
  disableAfter?: number
  /** How long a receiver has to answer, in ms (default 10 s). */
  receiverTimeoutMs?: number
  /** Refuse plain-http endpoint URLs even for loopback hosts. */
  strictUrls?: boolean
  /** Origins whose browser pages may call the whole API (`serve --cors`); `*` for any. */
  cors?: readonly string[]
  /** How often a quiet event stream sends a `ping`, in ms (default 15 s). */
  keepAliveMs?: number
  /** Most live streams of one check's table page, and from one remote address (default 50 and 100). */
  streamLimits?: {perCheck?: number; perAddress?: number}
  /** How long events and idempotency keys are kept (default 30 days and 100,000 events per account; 24 h). */
  retention?: Partial<RetentionPolicy>
  /** Requests the log keeps per account (`--request-log N`, default 1000); 0 turns it off. */
  requestLog?: number
  /** Requests a second per account (`--rate-limit N`); off when undefined. */
  rateLimit?: number
  /** The rate limiter's clock, in ms (default Date.now): tests move their own instead of waiting. */
  rateLimitClock?: () => number
  /** The bounds of what callers make freely (default `LIMITS`, docs/api.md "Limits"), lower for tests. */
  limits?: Partial<Limits>
  /** Called with each answered API request: the access line of `serve --log`. */
  accessLog?: (line: AccessLine) => void
}

export type {SeededAccount}
export type {AccessLine}

/** The in-memory store (with its journal, if any) behind the storage interface, or a storage as it is (PostgreSQL). */
export const storageOf = (store: Store | Storage): Storage =>
  store instanceof Store ? new MemoryStorage(store) : store

/** The service layer over `store`, for the server at `baseUrl`. */
function serviceOver(
  store: Store | Storage,
  baseUrl: string,
  clock: SchedulerClock,
  {
    strictUrls = false,
    retention,
    requestLog,
    rateLimit,
    rateLimitClock,
    limits,
  }: Pick<ServiceOptions, 'strictUrls' | 'retention' | 'requestLog' | 'rateLimit' | 'rateLimitClock' | 'limits'> = {},
): Service {
  return createServiceLayer({
    storage: storageOf(store),
    baseUrl,
    now: wallClockIso,
    clock,
    strictUrls,
    retention: {...DEFAULT_RETENTION, ...retention},
    requestLogSize: requestLog,
    rateLimit: rateLimit ? {perSecond: rateLimit, now: rateLimitClock} : undefined,
    limits,
  })
}

/**
 * Adds the seed to `store`: the one given, else the default one when the
 * store is empty. Resolves with the seed given, checked, and whether it
 * added anything.
 */
export async function seedStore(
  store: Store | Storage,
  {seed, seedFile, limits, strictUrls}: Pick<ServiceOptions, 'seed' | 'seedFile' | 'limits' | 'strictUrls'>,
): Promise<{seed?: Seed; added: boolean}> {
  let parsed = seed === undefined ? undefined : parseSeed(seed, 'the seed option')
  if (!parsed && seedFile) parsed = await readSeedFile(seedFile)
  const service = serviceOver(store, '', new SchedulerClock(), {limits, strictUrls})
  return {seed: parsed, added: await service.accounts.seed(parsed, defaultSeed)}
}

/**
 * The API over `store`, answering as `baseUrl`: the scheduler clock (as far
 * advanced as the store remembers), the delivery dispatcher, the h3 app and
 * its node listener. `close` ends its event streams and waits for attempts
 * in flight.
 *
 * @example
 * const {app, listener} = await createService(store, 'http://127.0.0.1:4747', {})
 * createServer(listener).listen(4747) // or, with no port: toWebHandler(app)
 */
export async function createService(
  store: Store | Storage,
  baseUrl: string,
  options: ServiceOptions,
  /** Exported snapshots to store and restore into their accounts (`serve --import`), read already (`readImports`). */
  imports: readonly SnapshotDocument[] = [],
) {
  const clock = new SchedulerClock(options.timeScale ?? 1)
  const service = serviceOver(store, baseUrl, clock, options)
  clock.moveToOffset(await service.sim.clockOffset())
  const dispatcher = new Dispatcher(service, clock, {
    schedule: options.retrySchedule,
    disableAfter: options.disableAfter,
    timeoutMs: options.receiverTimeoutMs,
  })
  const pruner = new Pruner(service.retention)
  const shutdown = new AbortController()
  /** What the start subscribed to, undone on close. */
  const unfollow: (() => void)[] = []
  // ends the event streams first: an open one would keep the HTTP server from closing
  const close = async () => {
    for (const undo of unfollow) undo()
    shutdown.abort()
    await Promise.all([dispatcher.close(), pruner.close(), service.outbox.close()])
  }
  try {
    await dispatcher.start()
    unfollow.push(() => service.deliveries.detach())
    await importAtStart(service, dispatcher, imports)
    pruner.start()
    const streams = new StreamHub({
      records: service.records,
      shutdown: shutdown.signal,
      keepAliveMs: options.keepAliveMs,
      limits: options.streamLimits,
    })
    // each logged request goes to the account's live streams too, rendered only when one is open; the topic's
    // name is made once per account, not once per request
    const topics = new Map<string, string>()
    unfollow.push(
      service.requests.subscribe((accountId, trace) => {
        let topic = topics.get(accountId)
        if (topic === undefined) topics.set(accountId, (topic = `account:${accountId}`))
        streams.publish(topic, () => [{event: 'request', data: service.requests.render(trace)}])
      }),
    )
    // with other instances on the database, each logs the others' requests too (docs/postgres.md)
    const {shared} = service.context.storage
    if (shared) unfollow.push(shareRequests(service.requests, shared))
    // the others' changes told while the listening connection was lost never come: the streams' clients reconnect
    // and read what they missed (docs/postgres.md, "Changes reach the listeners in commit order")
    if (shared) unfollow.push(shared.onReconnect(() => streams.endAll()))
    // on PostgreSQL: the faults of every instance, and the others' changes to them
    unfollow.push(await service.faults.start())
    const {app, listener} = createApp(service, {
      baseUrl,
      clock,
      dispatcher,
      pruner,
      streams,
      cors: options.cors,
      traffic: {access: options.accessLog},
    })
    return {app, listener, service, dispatcher, streams, close}
  } catch (error) {
    // a start that failed leaves nothing running behind it
    await close()
    throw error
  }
}
