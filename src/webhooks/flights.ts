import type {DeliveryRecord} from '../domain/records.js'
import {abandonedBy} from '../domain/snapshots.js'
import type {AttemptOut} from './dispatcher-service.js'
import type {Entry} from './scheduler.js'
import type {Cancelable} from './send.js'

/** An attempt out: where and since when, the delivery it claimed, what it runs, and whether it was let go. */
export interface Flight extends Cancelable {
  readonly out: AttemptOut
  /** Its endpoint's lane (scheduler.ts): an endpoint's id may be another account's too. */
  readonly lane: string
  claimed?: DeliveryRecord
  run?: Promise<void>
  letGo: boolean
}

/**
 * The dispatcher's attempts out, one per delivery. One is let go, its
 * request canceled and its answer unrecorded, when the server stops (it is
 * made again at the next start) or when a restore abandons it (the
 * delivery restored goes when due, not once the answer of the one it
 * replaced comes): docs/api.md, "Webhooks", and docs/snapshots.md.
 *
 * @example
 * const flight = flights.open({id: 'dlv_1', endpointId: 'we_1', lane: 'acct_demo/we_1'})
 * flight.run = attempt(flight).finally(() => flights.close('dlv_1'))
 */
export class Flights {
  readonly #out = new Map<string, Flight>()
  /** The test pings out (`POST /webhook-endpoints/{id}/test`): a stop lets them go too. */
  readonly #pings = new Set<Held>()
  #stopped = false

  get size(): number {
    return this.#out.size
  }

  /** An attempt of delivery `id` to `endpointId` goes out now. */
  open({id, endpointId, lane}: Pick<Entry, 'id' | 'endpointId' | 'lane'>): Flight {
    const flight = {out: {endpointId, deliveryId: id, since: Date.now()}, lane, letGo: false}
    this.#out.set(id, flight)
    return flight
  }

  close(id: string): void {
    this.#out.delete(id)
  }

  /** A commit wrote delivery `id`: its attempt out is let go if a restore abandoned it. */
  heard(id: string, record: DeliveryRecord | null): void {
    const flight = this.#out.get(id)
    if (flight?.claimed && record && abandonedBy(flight.claimed, record)) letGo(flight)
  }

  /** Lets every attempt out go, and every ping: the server stops. */
  stopAll(): void {
    this.#stopped = true
    for (const held of [...this.#out.values(), ...this.#pings]) letGo(held)
  }

  /** Runs `send`, a test ping's request, which a stop lets go: a receiver that never answers holds no stop. */
  async ping<T>(send: (held: Cancelable) => Promise<T>): Promise<T> {
    const held: Held = {letGo: this.#stopped}
    this.#pings.add(held)
    try {
      return await send(held)
    } finally {
      this.#pings.delete(held)
    }
  }

  /** Resolves when none is out. */
  async idle(): Promise<void> {
    while (this.#out.size > 0) await Promise.all([...this.#out.values()].map(({run}) => run))
  }

  /** Whether an attempt is out in `lane`, to that account's endpoint (none in no lane). */
  outIn(lane: string | undefined): boolean {
    for (const flight of this.#out.values()) if (flight.lane === lane) return true
    return false
  }

  /** Each attempt out. */
  outs(): AttemptOut[] {
    return [...this.#out.values()].map(({out}) => out)
  }
}

/** What a stop or a restore lets go: an attempt out, or a ping. */
type Held = Cancelable & {letGo: boolean}

/** Marks the attempt let go (its answer is not recorded, its request not made), and cancels its request if it is out. */
function letGo(held: Held): void {
  held.letGo = true
  held.cancel?.()
}
