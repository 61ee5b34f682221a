import {
  type AttemptOptions,
  type AttemptResult,
  cancelDelivery,
  mayHaveRedeliveries,
  recordAttempt,
  recordDuplicate,
  requeueDelivery,
  supersede,
  wants,
} from '../domain/deliveries.js'
import {endpointKey} from '../domain/endpoints.js'
import {Batches} from '../shared/batches.js'
import {ApiError, invalidField} from '../domain/errors.js'
import {abandonedBy} from '../domain/snapshots.js'
import type {DeliveryRecord, EventRecord, WebhookEndpointRecord} from '../domain/records.js'
import type {Attempt} from '../webhooks/dispatcher-service.js'
import type {DeliveryQueue, ServiceContext} from './context.js'
import {endpointOf} from './endpoints.js'
import type {Outbox, UnitReads} from './outbox.js'
import {MissedDeliveries} from './missed-deliveries.js'
import type {ClaimedDelivery, UnitOfWork} from './storage.js'

/**
 * What the dispatcher's records of a delivery read: the delivery it holds, its endpoint's count of dead
 * deliveries and, after a resend or recovery, the other deliveries of its event to the endpoint. A fan-out
 * adds deliveries and draws endpoints' chaos, none of which they decide on (those other deliveries are
 * written by resend and recovery, which run after the fan-outs before them), so they wait for none: an
 * attempt is never recorded behind a backlog of fan-outs. (An endpoint one disables is disabled for the
 * fan-outs still to run too: they write it nothing, as their attempts would send nothing.)
 */
const HELD: UnitReads = {reads: []}

/** Deliveries of events to endpoints, for the API (retry) and the dispatcher (what to send, what came of it). */
export class Deliveries {
  #queue: DeliveryQueue | undefined
  /** What `attach` follows on a database, undone by `detach`. */
  #following: (() => void)[] = []

  constructor(
    readonly context: ServiceContext,
    readonly outbox: Outbox,
  ) {}

  /**
   * Makes `queue` the one told of every delivery written from now on, and
   * returns those pending already: the ones a stopped server left, delivered
   * at least once. On a database, `missed` is handed those pending each time
   * the instance hears the others again: what was written while it could not
   * hear, or by a unit whose COMMIT's answer was lost, reached no queue. Both
   * reads leave out the deliveries the queue was told of while they read
   * (missed-deliveries.ts).
   */
  async attach(queue: DeliveryQueue, missed?: (pending: DeliveryRecord[]) => void): Promise<DeliveryRecord[]> {
    const {storage} = this.context
    const pending = () => storage.all('deliveries', {status: 'pending'})
    const catching = missed && storage.shared ? new MissedDeliveries(pending, missed) : undefined
    const told: DeliveryQueue = catching
      ? (changes) => {
          catching.told(changes)
          queue(changes)
        }
      : queue
    await this.outbox.attach(told)
    this.#queue = told
    if (storage.shared) {
      // the deliveries other instances on the database write, and their attempts (docs/postgres.md)
      this.#following.push(storage.subscribe((changes, remote) => remote && told(changes), ['deliveries', 'settings']))
      if (catching)
        this.#following.push(
          storage.shared.onReconnect(() => void catching.catchUp()),
          () => catching.stop(),
        )
    }
    return catching ? catching.newer() : pending()
  }

  /** The server stops: no more is followed of the other instances, nor caught up on. */
  detach(): void {
    for (const undo of this.#following.splice(0)) undo()
  }

  /**
   * The pending delivery and what its attempt due at `dueAt` (scheduler ms) sends to where: with other
   * instances on the database, only the one that claims it (a lease of `leaseMs`, which recording the
   * attempt ends) gets it; `'held'` while another live instance, or a transaction, holds it. Alone, it is the
   * delivery as stored.
   */
  claim(id: string, dueAt: number, leaseMs: number): Promise<Attempt | 'held' | undefined> {
    return this.context.storage.shared ? this.#claimShared(id, dueAt, leaseMs) : this.#claimAlone(id)
  }

  async #claimAlone(id: string): Promise<Attempt | undefined> {
    const {storage} = this.context
    const delivery = await storage.get('deliveries', id)
    if (delivery?.status !== 'pending') return undefined
    const [endpoint, event] = await Promise.all([this.endpoint(delivery), storage.get('events', delivery.event_id)])
    return attemptOf({delivery, endpoint, event})
  }

  async #claimShared(id: string, dueAt: number, leaseMs: number): Promise<Attempt | 'held' | undefined> {
    const {storage} = this.context
    // the claim reads the endpoint and the event with it: one round trip (docs/postgres.md, "Delivery across instances")
    const claim = await storage.shared!.claim(id, dueAt, leaseMs)
    if (typeof claim === 'object') return attemptOf(claim)
    if (claim !== undefined) return claim
    // another instance made that attempt, or it was canceled or retried, and the change has not arrived yet:
    // the queue learns what is due next now, and an advance counts the attempts it shows (contested-claims.ts)
    const latest = await storage.get('deliveries', id)
    if (latest) this.#queue?.([['deliveries', id, latest]])
    return undefined
  }

  endpoint(delivery: DeliveryRecord): Promise<WebhookEndpointRecord | undefined> {
    return endpointOf(this.context.storage, delivery.account_id, delivery.endpoint_id)
  }

  /** Set once a write failed: no attempt could be recorded from then on. */
  get failure(): Error | undefined {
    return this.context.storage.failure
  }

  /**
   * One more attempt now, whatever the delivery's state, to an endpoint that is still there
   * and enabled; its attempts so far are kept.
   *
   * @example
   * const delivery = await service.deliveries.retry(dead)
   */
  retry(delivery: DeliveryRecord): Promise<DeliveryRecord> {
    const {clock, now} = this.context
    return this.outbox.unit({reads: ['webhook_endpoints'], account: delivery.account_id}, async (tx) => {
      // as stored now: an attempt recorded since the route read it must not be written over
      const latest = await tx.get('deliveries', delivery.id)
      if (!latest) throw new ApiError('not_found', `No delivery ${delivery.id} in this account.`)
      const endpoint = await endpointOf(tx, latest.account_id, latest.endpoint_id)
      const requeued = requeueDelivery(latest, endpoint, clock.now(), now())
      tx.put('deliveries', requeued.id, requeued)
      return requeued
    })
  }

  /**
   * Ends a delivery that has nowhere to go, as stored now: one deleted meanwhile (a reset, its
   * account deleted, which is also why its event was gone) stays deleted, and one retried or
   * ended meanwhile is left as it is.
   */
  cancel(delivery: DeliveryRecord, now: string): Promise<void> {
    return this.outbox.unit(HELD, async (tx) => {
      const latest = await tx.get('deliveries', delivery.id)
      if (latest?.status === 'pending' && !abandonedBy(delivery, latest))
        tx.put('deliveries', latest.id, cancelDelivery(latest, now))
    })
  }

  /**
   * Records what an attempt to `endpoint` came to, on the delivery and the
   * endpoint as they are now: while the request was out the endpoint may have
   * been deleted (the delivery canceled with it) or disabled, or the delivery
   * retried; a delivery deleted with its account (a reset) has nothing left to record, nor one a restore
   * wrote since (docs/snapshots.md). A success
   * supersedes the endpoint's other deliveries of the event still pending (docs/api.md, "Webhooks",
   * A success ends the retries).
   * Resolves with the endpoint as it is then: undefined once deleted (or the delivery with it).
   */
  recordAttempt(
    id: string,
    endpoint: WebhookEndpointRecord,
    result: AttemptResult,
    options: AttemptOptions,
  ): Promise<WebhookEndpointRecord | undefined> {
    return this.#records.add({id, endpoint, result, options})
  }

  /**
   * The attempts that ended while the last ones were being recorded, recorded together in one unit: it reads
   * their deliveries and endpoints in one read each (docs/storage.md, "Attempts recorded together").
   */
  readonly #records = new Batches((attempts: readonly AttemptRecord[]) =>
    this.outbox.unit(HELD, async (tx) => {
      const ids = attempts.map((attempt) => attempt.id)
      const keys = [...new Set(attempts.map((attempt) => endpointKey(attempt.endpoint)))]
      // asked together: on PostgreSQL one round trip (docs/postgres.md, "The round trips of a push")
      const [deliveries, endpoints] = await Promise.all([
        tx.getMany('deliveries', ids).then((records) => byId(ids, records)),
        tx.getMany('webhook_endpoints', keys).then((records) => byId(keys, records)),
      ])
      const outcomes: (WebhookEndpointRecord | undefined)[] = []
      for (const attempt of attempts) outcomes.push(await record(tx, attempt, deliveries, endpoints))
      return outcomes
    }),
  )

  /**
   * A new delivery of `event` to the account's endpoint `endpointId`, due now: the same body bytes and event id.
   *
   * @example
   * const delivery = await service.deliveries.resend(event, 'we_…')
   */
  resend(event: EventRecord, endpointId: string): Promise<DeliveryRecord> {
    return this.outbox.unit({reads: ['webhook_endpoints'], account: event.account_id}, async (tx) => {
      const endpoint = await endpointOf(tx, event.account_id, endpointId)
      if (!endpoint) throw invalidField('endpoint_id', `no webhook endpoint ${endpointId} in this account`)
      return this.outbox.redeliver(tx, endpoint, [event])[0]!
    })
  }

  /**
   * Records the duplicate that delivery chaos sent after a success, as one more attempt marked `duplicate: true`,
   * numbered as it was `sent`.
   */
  recordDuplicate(id: string, result: AttemptResult, now: string, sent: number): Promise<void> {
    return this.outbox.unit(HELD, async (tx) => {
      const latest = await tx.get('deliveries', id)
      if (latest) tx.put('deliveries', id, recordDuplicate(latest, result, now, sent))
    })
  }
}

/** An attempt's outcome to record: `recordAttempt`'s arguments. */
interface AttemptRecord {
  id: string
  endpoint: WebhookEndpointRecord
  result: AttemptResult
  options: AttemptOptions
}

/**
 * The attempt a delivery makes: none when its endpoint is gone, disabled or no longer takes its type, or its
 * event gone or another account's (an imported delivery may name any event id: docs/snapshots.md).
 */
const attemptOf = ({delivery, endpoint, event}: ClaimedDelivery): Attempt => ({
  delivery,
  target: event?.account_id === delivery.account_id && wants(endpoint, event) ? {endpoint, event} : undefined,
})

const byId = <T>(ids: readonly string[], records: readonly (T | undefined)[]) =>
  new Map(ids.map((id, i) => [id, records[i]]))

/**
 * Records one attempt on its delivery and endpoint as `tx` read them, and keeps each as written, for the
 * attempts recorded after it in the same unit (two failures to one endpoint count two).
 */
async function record(
  tx: UnitOfWork,
  {id, endpoint, result, options}: AttemptRecord,
  deliveries: Map<string, DeliveryRecord | undefined>,
  endpoints: Map<string, WebhookEndpointRecord | undefined>,
): Promise<WebhookEndpointRecord | undefined> {
  const latest = deliveries.get(id)
  // a restore since the attempt began put the delivery back as it was saved: the attempt is abandoned
  if (!latest || abandonedBy(options.claimed, latest)) return undefined
  const key = endpointKey(endpoint)
  // one made since under the same chosen id is another endpoint (its failures, its chaos): the attempt's is gone
  const found = endpoints.get(key)
  const current = found?.created_at === endpoint.created_at ? found : undefined
  const outcome = recordAttempt(latest, current ?? endpoint, result, options)
  tx.put('deliveries', id, outcome.delivery)
  deliveries.set(id, outcome.delivery)
  if (current === undefined) return undefined
  if (outcome.endpoint !== current) tx.put('webhook_endpoints', key, outcome.endpoint)
  endpoints.set(key, outcome.endpoint)
  const succeeded = outcome.delivery.status === 'succeeded' && latest.status === 'pending'
  if (succeeded && mayHaveRedeliveries(latest, current)) await supersedeOthers(tx, latest, options.now, deliveries)
  return outcome.endpoint
}

/**
 * Ends the pending deliveries of `succeeded`'s event to its endpoint, other than itself: superseded by it.
 * `recorded`: the deliveries of the unit as it wrote them so far.
 */
async function supersedeOthers(
  tx: UnitOfWork,
  succeeded: DeliveryRecord,
  now: string,
  recorded: Map<string, DeliveryRecord | undefined>,
): Promise<void> {
  const {account_id, event_id, endpoint_id} = succeeded
  for (const listed of await tx.list('deliveries', account_id, {event_id, endpoint_id, status: 'pending'})) {
    const other = recorded.get(listed.id) ?? listed
    if (other.id === succeeded.id || other.status !== 'pending') continue
    const superseded = supersede(other, succeeded.id, now)
    tx.put('deliveries', other.id, superseded)
    if (recorded.has(other.id)) recorded.set(other.id, superseded)
  }
}
