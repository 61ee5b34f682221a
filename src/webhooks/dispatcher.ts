import {type AttemptResult, cancelDelivery, DISABLE_AFTER, RETRY_SCHEDULE, recordAttempt} from '../domain/deliveries.js'
import {renderEvent} from '../domain/events.js'
import type {DeliveryRecord} from '../domain/records.js'
import {type Change, put, type Store} from '../store/store.js'
import {type SchedulerClock, wallClockIso} from './clock.js'
import {deliveryHeaders, postDelivery, RECEIVER_TIMEOUT_MS} from './send.js'

export interface DispatcherOptions {
  schedule?: readonly number[]
  disableAfter?: number
  timeoutMs?: number
  /** Attempts in flight at once, overall and per endpoint: a slow receiver cannot take every slot. */
  concurrency?: number
  perEndpoint?: number
}

/**
 * Sends due deliveries and records their attempts. It learns of new
 * deliveries from the store's commits, keeps one timer for the earliest due
 * one, and at start picks up whatever was pending (or in flight) when the
 * server stopped: delivery is at-least-once.
 */
export class Dispatcher {
  /** Each pending delivery's due time and endpoint: every finished attempt pumps, and the pump reads these, not the records. */
  readonly #pending = new Map<string, {due: number; endpointId: string}>()
  readonly #inFlight = new Map<string, Promise<void>>()
  readonly #perEndpoint = new Map<string, number>()
  #timer: NodeJS.Timeout | undefined
  /** The last `advance` asked for: advances run one after another. */
  #advancing: Promise<unknown> = Promise.resolve()
  /** True while `advance` drives the clock, so no real-time timer moves it too. */
  #driven = false
  /** Attempts started so far; `advance` reports the difference. */
  #started = 0
  #closed = false
  readonly #unsubscribe: () => void

  constructor(
    readonly store: Store,
    readonly clock: SchedulerClock,
    readonly options: DispatcherOptions = {},
  ) {
    for (const delivery of store.tables.deliveries.all()) if (delivery.status === 'pending') this.#track(delivery)
    this.#unsubscribe = store.subscribe((changes) => this.#onCommit(changes))
    this.#pump()
  }

  #onCommit(changes: Change[]): void {
    let added = false
    for (const [collection, id, record] of changes) {
      if (collection !== 'deliveries') continue
      if (record?.status === 'pending') {
        this.#track(record as DeliveryRecord)
        added = true
      } else {
        this.#pending.delete(id)
      }
    }
    if (added) this.#pump()
  }

  #dueAt(delivery: DeliveryRecord): number {
    return Date.parse(delivery.next_attempt_at!)
  }

  #track(delivery: DeliveryRecord): void {
    this.#pending.set(delivery.id, {due: this.#dueAt(delivery), endpointId: delivery.endpoint_id})
  }

  /**
   * Starts every due attempt there is room for, then sets the timer for the
   * next one. While `advance` drives the clock it sets no timer: advance
   * decides when the clock moves.
   */
  #pump(): void {
    // after a failed journal write no attempt can be recorded: its delivery would stay due and be sent again at once, forever
    if (this.#closed || this.store.failure) return
    clearTimeout(this.#timer)
    const now = this.clock.now()
    let next = Infinity
    for (const [id, {due, endpointId}] of this.#pending) {
      if (this.#inFlight.has(id)) continue
      if (due > now) next = Math.min(next, due)
      else if (this.#hasRoom(endpointId)) {
        const delivery = this.store.tables.deliveries.get(id)
        if (delivery?.status === 'pending') this.#start(delivery, due)
      }
    }
    if (next !== Infinity && !this.#driven) this.#timer = setTimeout(() => this.#pump(), Math.min(this.clock.realDelayUntil(next), 2 ** 31 - 1)).unref()
  }

  #hasRoom(endpointId: string): boolean {
    return this.#inFlight.size < (this.options.concurrency ?? 32) && (this.#perEndpoint.get(endpointId) ?? 0) < (this.options.perEndpoint ?? 8)
  }

  #start(delivery: DeliveryRecord, dueAt: number): void {
    this.#started++
    const endpointId = delivery.endpoint_id
    this.#perEndpoint.set(endpointId, (this.#perEndpoint.get(endpointId) ?? 0) + 1)
    const run = this.#attempt(delivery, dueAt)
      .catch((error) => console.error('[tablepay] delivery', delivery.id, error))
      .finally(() => {
        this.#inFlight.delete(delivery.id)
        this.#perEndpoint.set(endpointId, this.#perEndpoint.get(endpointId)! - 1)
        this.#pump()
      })
    this.#inFlight.set(delivery.id, run)
  }

  async #attempt(delivery: DeliveryRecord, dueAt: number): Promise<void> {
    const {webhook_endpoints, events} = this.store.tables
    const endpoint = webhook_endpoints.get(delivery.endpoint_id)
    const event = events.get(delivery.event_id)
    if (!endpoint || endpoint.status !== 'enabled' || !event) {
      await this.store.commit([put('deliveries', delivery.id, cancelDelivery(delivery, wallClockIso()))])
      return
    }
    // event records never change, so the body is the same bytes on every attempt
    const body = JSON.stringify(renderEvent(event))
    const result = await this.send(endpoint, event, body, delivery.attempts.length + 1)
    // re-read both: while the request was out the endpoint may have been deleted or disabled, the delivery
    // canceled or retried, or deleted with its account (a reset): then there is nothing left to record
    const latest = this.store.tables.deliveries.get(delivery.id)
    if (!latest) return
    const current = webhook_endpoints.get(endpoint.id)
    const outcome = recordAttempt(latest, current ?? endpoint, result, {
      now: wallClockIso(),
      dueAt,
      schedule: this.options.schedule ?? RETRY_SCHEDULE,
      disableAfter: this.options.disableAfter ?? DISABLE_AFTER,
    })
    const endpointChanged = current !== undefined && outcome.endpoint !== current
    await this.store.commit([put('deliveries', delivery.id, outcome.delivery), ...(endpointChanged ? [put('webhook_endpoints', current.id, outcome.endpoint)] : [])])
  }

  /** One signed POST to an endpoint within the receiver timeout: a queued attempt, or the ping sent outside the queue. */
  send(endpoint: {url: string; secret: string}, event: {id: string; type: string}, body: string, attempt: number): Promise<AttemptResult> {
    return postDelivery(endpoint.url, body, deliveryHeaders(body, endpoint.secret, event, attempt), this.options.timeoutMs ?? RECEIVER_TIMEOUT_MS)
  }

  /** Resolves when no attempt is in flight. */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all(this.#inFlight.values())
  }

  /**
   * Moves the clock forward by `seconds`, stopping at each due time on the
   * way so that every attempt, and every retry it schedules, runs at the
   * time it was due. Resolves when all of it has run.
   */
  advance(seconds: number): Promise<number> {
    // one advance at a time: a second one starts from where the first left the clock
    const run = this.#advancing.then(() => this.#advanceNow(seconds))
    this.#advancing = run.catch(() => undefined)
    return run
  }

  async #advanceNow(seconds: number): Promise<number> {
    const target = this.clock.now() + seconds * 1000
    const startedBefore = this.#started
    this.#driven = true
    clearTimeout(this.#timer)
    try {
      await this.idle()
      for (;;) {
        const due = this.#earliestDue()
        if (due === undefined || due > target) break
        this.clock.moveTo(due)
        // the same limits as in real time: each finished attempt pumps the next one that has room
        const startedNow = this.#started
        this.#pump()
        if (this.#started === startedNow) break // nothing could start: stop rather than spin
        await this.idle()
      }
      this.clock.moveTo(target)
    } finally {
      this.#driven = false
      this.#pump()
    }
    return this.#started - startedBefore
  }

  #earliestDue(): number | undefined {
    let earliest: number | undefined
    for (const [id, {due}] of this.#pending) {
      if (this.store.tables.deliveries.get(id)?.status === 'pending') earliest = Math.min(earliest ?? Infinity, due)
    }
    return earliest
  }

  async close(): Promise<void> {
    this.#closed = true
    clearTimeout(this.#timer)
    this.#unsubscribe()
    await this.idle()
  }
}
