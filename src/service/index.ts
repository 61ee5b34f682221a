import {Accounts} from './accounts.js'
import {Checks} from './checks.js'
import type {ServiceContext} from './context.js'
import {Deliveries} from './deliveries.js'
import {Endpoints} from './endpoints.js'
import {Faults} from './faults.js'
import {GuestActions} from './guest-actions.js'
import {Outbox} from './outbox.js'
import {Background} from '../webhooks/background.js'
import {RateLimiter} from './rate-limiter.js'
import {Records} from './records.js'
import {Retention} from './retention.js'
import {RequestLog} from './request-log.js'
import {Sim} from './sim.js'
import {Snapshots} from './snapshots.js'
import {REQUEST_LOG_SIZE} from '../domain/request-log.js'

export type {DeliveryQueue, ServiceContext} from './context.js'
export type {Answer, IdempotentRequest} from './idempotency.js'
export type {Change, PageOf, PageQuery, Reader, Storage, UnitOfWork, Where} from './storage.js'
export type {PushNotes, RequestTrace} from './request-log.js'

/**
 * The one owner of every change (ARCHITECTURE.md): each method runs a pure
 * rule of `domain/` and writes the record, its events and their deliveries
 * as one unit of work of `context.storage`. Routes, the msw handlers and the
 * dispatcher call it; nothing else reads or writes the storage.
 *
 * @example
 * const storage = new MemoryStorage(store)
 * const service = createServiceLayer({storage, baseUrl, now: wallClockIso, clock, strictUrls: false})
 * const outcome = await service.checks.push('acct_demo', 't12', body)
 */
export function createServiceLayer(context: ServiceContext) {
  // requests tell it they keep coming; fan-outs and attempts step back meanwhile (docs/storage.md)
  const background = new Background()
  const outbox = new Outbox(context, background)
  // support tracing and faults: in memory, beside the storage (docs/api.md, "The request log");
  // on PostgreSQL faults are in the database, for every instance (docs/postgres.md)
  const requests = new RequestLog(context.requestLogSize ?? REQUEST_LOG_SIZE)
  const faults = new Faults(context.storage.shared, context.limits?.faults, (id) => context.storage.has('accounts', id))
  // a reset and an account's deletion clear them too
  const traffic = {requests, faults}
  const {rateLimit} = context
  return {
    context,
    /** The unit of work every change goes through; deliveries it writes reach the dispatcher. */
    outbox,
    records: new Records(context.storage, outbox),
    /** Whether requests keep the server busy: the app tells it of each, background work asks it. */
    background,
    checks: new Checks(context, outbox),
    guests: new GuestActions(context, outbox),
    endpoints: new Endpoints(context, outbox),
    deliveries: new Deliveries(context, outbox),
    accounts: new Accounts(context, outbox, traffic),
    sim: new Sim(context, outbox, traffic),
    /** Saved states of an account, and their restore (docs/snapshots.md). */
    snapshots: new Snapshots(context, outbox),
    retention: new Retention(context, outbox, context.retention),
    /** What each account's requests were: the request log. */
    requests,
    /** The faults each account asked for (`POST /v1/sim/faults`). */
    faults,
    /** The per-account rate limit of `serve --rate-limit`, when on. */
    limiter: rateLimit ? new RateLimiter(rateLimit.perSecond, rateLimit.now) : undefined,
  }
}

export type Service = ReturnType<typeof createServiceLayer>
