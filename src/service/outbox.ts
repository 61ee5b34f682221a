import {stirDelivery} from '../domain/chaos.js'
import {fanOut, redeliver} from '../domain/deliveries.js'
import type {DeliveryRecord, EventRecord, WebhookEndpointRecord} from '../domain/records.js'
import type {DeliveryQueue, ServiceContext} from './context.js'
import type {UnitOfWork} from './storage.js'

/**
 * Events and their deliveries are written in the unit of work of the change
 * that caused them, so a change is never stored without its webhooks, nor a
 * webhook without its change. Every write of the service goes through
 * `commit`, which tells the delivery queue directly of the deliveries it
 * wrote once they are durable (docs/api.md "Webhooks").
 */
export class Outbox {
  #queue: DeliveryQueue | undefined
  readonly #durable: DeliveryQueue = (changes) => this.#queue?.(changes)
  /** Endpoints a fan-out stirred (delivery chaos); emptied before anything awaits, so one list serves every push. */
  readonly #stirred: WebhookEndpointRecord[] = []

  constructor(readonly context: ServiceContext) {}

  /** The one queue told of new and changed deliveries (the dispatcher); it reads what was pending on its own. */
  attach(queue: DeliveryQueue): void {
    this.#queue = queue
  }

  /** Runs `work` as one unit of work; resolves with its value once durable. */
  commit<T>(work: (tx: UnitOfWork) => Promise<T>): Promise<T> {
    return this.context.storage.unit(work, this.#durable)
  }

  /** Writes `events`, and a delivery of each to every endpoint of its account that wants it, due now. */
  async publish(tx: UnitOfWork, events: readonly EventRecord[]): Promise<void> {
    if (events.length === 0) return
    // all events, then all deliveries: the journal writes a run of one collection in its short form
    for (const event of events) tx.put('events', event.id, event)
    // the events of one change belong to one account
    let endpoints = await tx.list('webhook_endpoints', events[0]!.account_id)
    const due = this.context.clock.now()
    // endpoints under chaos draw once per delivery: a later event of this unit must see the draws before it
    const stirred = this.#stirred
    let drawn: Map<string, WebhookEndpointRecord> | undefined
    for (const event of events) {
      for (const delivery of fanOut(event, endpoints, due, stirred)) tx.put('deliveries', delivery.id, delivery)
      if (stirred.length === 0) continue
      drawn ??= new Map()
      for (const endpoint of stirred.splice(0)) drawn.set(endpoint.id, endpoint)
      endpoints = endpoints.map((endpoint) => drawn!.get(endpoint.id) ?? endpoint)
    }
    if (drawn) for (const endpoint of drawn.values()) tx.put('webhook_endpoints', endpoint.id, endpoint)
  }

  /**
   * Writes one new delivery of each of `events` to `endpoint`, due now, in their order (resend,
   * recover); an endpoint under chaos stirs them as it does any new delivery.
   */
  redeliver(tx: UnitOfWork, endpoint: WebhookEndpointRecord, events: readonly EventRecord[]): DeliveryRecord[] {
    const dueAt = this.context.clock.now()
    const now = this.context.now()
    let chaos = endpoint.chaos
    const deliveries = events.map((event) => {
      const delivery = redeliver(event, endpoint, dueAt, now)
      if (chaos === undefined) return delivery
      const stir = stirDelivery(delivery, chaos, dueAt)
      chaos = stir.chaos
      return stir.delivery
    })
    for (const delivery of deliveries) tx.put('deliveries', delivery.id, delivery)
    if (chaos !== endpoint.chaos) tx.put('webhook_endpoints', endpoint.id, {...endpoint, chaos})
    return deliveries
  }
}
