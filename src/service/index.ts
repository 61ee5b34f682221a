import {Accounts} from './accounts.js'
import {Checks} from './checks.js'
import type {ServiceContext} from './context.js'
import {Deliveries} from './deliveries.js'
import {Endpoints} from './endpoints.js'
import {GuestActions} from './guest-actions.js'
import {Outbox} from './outbox.js'
import {Records} from './records.js'
import {Retention} from './retention.js'
import {Sim} from './sim.js'

export type {DeliveryQueue, ServiceContext} from './context.js'
export type {Answer, IdempotentRequest} from './idempotency.js'
export type {Change, PageOf, PageQuery, Reader, Storage, UnitOfWork, Where} from './storage.js'

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
  const outbox = new Outbox(context)
  return {
    context,
    /** The unit of work every change goes through; deliveries it writes reach the dispatcher. */
    outbox,
    records: new Records(context.storage),
    checks: new Checks(context, outbox),
    guests: new GuestActions(context, outbox),
    endpoints: new Endpoints(context, outbox),
    deliveries: new Deliveries(context, outbox),
    accounts: new Accounts(context, outbox),
    sim: new Sim(context, outbox),
    retention: new Retention(context, outbox, context.retention),
  }
}

export type Service = ReturnType<typeof createServiceLayer>
