import {cancelDelivery, DISABLE_AFTER, RETRY_SCHEDULE, recordAttempt} from '../domain/deliveries.js'
import {renderEvent} from '../domain/events.js'
import type {DeliveryRecord} from '../domain/records.js'
import {type Change, put, type Store} from '../store/store.js'
import type {SchedulerClock} from './clock.js'
import {postDelivery, RECEIVER_TIMEOUT_MS} from './send.js'
import {SIGNATURE_HEADER, signPayload} from './signature.js'

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
  readonly #pending = new Set<string>()
  readonly #inFlight = new Map<string, Promise<void>>()
  readonly #perEndpoint = new Map<string, number>()
  #timer: NodeJS.Timeout | undefined
  #paused = false
  #closed = false
  readonly #unsubscribe: () => void

  constructor(
    readonly store: Store,
    readonly clock: SchedulerClock,
    readonly options: DispatcherOptions = {},
  ) {
    for (const delivery of store.tables.deliveries.all()) if (delivery.status === 'pending') this.#pending.add(delivery.id)
    this.#unsubscribe = store.subscribe((changes) => this.#onCommit(changes))
    this.#pump()
  }

  #onCommit(changes: Change[]): void {
    let added = false
    for (const [collection, id, record] of changes) {
      if (collection !== 'deliveries') continue
      if (record?.status === 'pending') {
        this.#pending.add(id)
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

  /** Starts every due attempt there is room for, then sets the timer for the next one. */
  #pump(): void {
    if (this.#closed || this.#paused) return
    clearTimeout(this.#timer)
    const now = this.clock.now()
    let next = Infinity
    for (const id of this.#pending) {
      if (this.#inFlight.has(id)) continue
      const delivery = this.store.tables.deliveries.get(id)
      if (!delivery || delivery.status !== 'pending') continue
      const due = this.#dueAt(delivery)
      if (due > now) next = Math.min(next, due)
      else if (this.#hasRoom(delivery.endpoint_id)) this.#start(delivery, due)
    }
    if (next !== Infinity) this.#timer = setTimeout(() => this.#pump(), Math.min(this.clock.realDelayUntil(next), 2 ** 31 - 1)).unref()
  }

  #hasRoom(endpointId: string): boolean {
    return this.#inFlight.size < (this.options.concurrency ?? 32) && (this.#perEndpoint.get(endpointId) ?? 0) < (this.options.perEndpoint ?? 8)
  }

  #start(delivery: DeliveryRecord, dueAt: number): void {
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
      await this.store.commit([put('deliveries', delivery.id, cancelDelivery(delivery, new Date().toISOString()))])
      return
    }
    // event records never change, so the body is the same bytes on every attempt
    const body = JSON.stringify(renderEvent(event))
    const result = await postDelivery(
      endpoint.url,
      body,
      {
        [SIGNATURE_HEADER]: signPayload(body, endpoint.secret),
        'X-Tablepay-Event-Id': event.id,
        'X-Tablepay-Event-Type': event.type,
        'X-Tablepay-Delivery-Attempt': String(delivery.attempts.length + 1),
      },
      this.options.timeoutMs ?? RECEIVER_TIMEOUT_MS,
    )
    // re-read both: the endpoint may have been deleted or disabled, the delivery retried, while the request was out
    const current = webhook_endpoints.get(endpoint.id)
    const outcome = recordAttempt(this.store.tables.deliveries.get(delivery.id) ?? delivery, current ?? endpoint, result, {
      now: new Date().toISOString(),
      dueAt,
      schedule: this.options.schedule ?? RETRY_SCHEDULE,
      disableAfter: this.options.disableAfter ?? DISABLE_AFTER,
    })
    const endpointChanged = current !== undefined && outcome.endpoint !== current
    await this.store.commit([put('deliveries', delivery.id, outcome.delivery), ...(endpointChanged ? [put('webhook_endpoints', current.id, outcome.endpoint)] : [])])
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
  async advance(seconds: number): Promise<number> {
    const target = this.clock.now() + seconds * 1000
    this.#paused = true
    clearTimeout(this.#timer)
    let attempts = 0
    try {
      await this.idle()
      for (;;) {
        const due = this.#earliestDue()
        if (due === undefined || due > target) break
        this.clock.moveTo(due)
        const ready = [...this.#pending].map((id) => this.store.tables.deliveries.get(id)!).filter((d) => d && d.status === 'pending' && this.#dueAt(d) <= due)
        attempts += ready.length
        for (const delivery of ready) this.#start(delivery, this.#dueAt(delivery))
        await this.idle()
      }
      this.clock.moveTo(target)
    } finally {
      this.#paused = false
      this.#pump()
    }
    return attempts
  }

  #earliestDue(): number | undefined {
    let earliest: number | undefined
    for (const id of this.#pending) {
      const delivery = this.store.tables.deliveries.get(id)
      if (delivery?.status === 'pending') earliest = Math.min(earliest ?? Infinity, this.#dueAt(delivery))
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
