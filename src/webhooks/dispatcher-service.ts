import type {AttemptOptions, AttemptResult} from '../domain/deliveries.js'
import type {DeliveryRecord, EventRecord, WebhookEndpointRecord} from '../domain/records.js'
import type {Change} from '../store/store.js'
import type {ClockStore} from './clock-driver.js'
import type {SchedulerOptions} from './scheduler.js'

// what the dispatcher needs of the service it sits below (ARCHITECTURE.md, "The layers"), which fills it

/** The dispatcher's settings: the retry rules, the receiver timeout and the fair shares (scheduler.ts). */
export interface DispatcherOptions extends SchedulerOptions {
  schedule?: readonly number[]
  disableAfter?: number
  timeoutMs?: number
  /**
   * How long an attempt may wait for its endpoint's place and still send to the endpoint as its claim read it;
   * past that it reads the endpoint again (default 50 ms).
   */
  freshMs?: number
}

/** A delivery to attempt, and what the attempt sends to where: none when its endpoint is gone or disabled, or its event gone. */
export interface Attempt {
  delivery: DeliveryRecord
  target: {endpoint: WebhookEndpointRecord; event: EventRecord} | undefined
}

/** What the dispatcher asks of the service (`service.deliveries`): it never reads or writes the storage itself. */
export interface DeliveryLedger {
  /**
   * Makes `queue` the one told of every delivery written, once durable; returns those pending now. `missed` is
   * handed those pending whenever some may have been written untold (an instance on a database hearing again).
   */
  attach(
    queue: (changes: readonly Change[]) => void,
    missed?: (pending: DeliveryRecord[]) => void,
  ): Promise<DeliveryRecord[]>
  /** The delivery's endpoint as stored now: undefined once deleted. */
  endpoint(delivery: DeliveryRecord): Promise<WebhookEndpointRecord | undefined>
  /**
   * The pending delivery and its target, for the attempt due at `dueAt`, once this instance has claimed it for
   * `leaseMs`; `'held'` while another live instance, or a transaction, holds that attempt (on a database);
   * undefined when nothing is left to attempt: made by another instance, canceled, retried or deleted
   * meanwhile. With other instances, the delivery as stored then is passed to the queue first (an advance
   * counts the attempts it shows: contested-claims.ts).
   */
  claim(id: string, dueAt: number, leaseMs: number): Promise<Attempt | 'held' | undefined>
  /** Set once a write failed. */
  readonly failure: Error | undefined
  cancel(delivery: DeliveryRecord, now: string): Promise<void>
  /** Resolves with the endpoint as it is once the attempt is recorded: undefined once deleted. */
  recordAttempt(
    id: string,
    endpoint: WebhookEndpointRecord,
    result: AttemptResult,
    options: AttemptOptions,
  ): Promise<WebhookEndpointRecord | undefined>
  /** Records the chaos duplicate sent after a success, as one more attempt marked `duplicate: true`, numbered as `sent`. */
  recordDuplicate(id: string, result: AttemptResult, now: string, sent: number): Promise<void>
}

/** The parts of the service the dispatcher uses: the deliveries, and where the clock's offset is saved. */
export interface DispatcherService {
  deliveries: DeliveryLedger
  /** While requests keep the server busy, attempts start at a small pace (docs/storage.md, "Deferred fan-out"). */
  background: {mayStart(): boolean; started(): void}
  sim: ClockStore
}

/** An attempt out, as `GET /sim/clock` shows what an advance waits for. */
export interface AttemptOut {
  endpointId: string
  deliveryId: string
  /** Wall clock, ms. */
  since: number
}
