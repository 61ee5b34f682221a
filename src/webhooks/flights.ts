import type {DeliveryRecord} from '../domain/records.js'
import {abandonedBy} from '../domain/snapshots.js'
import type {AttemptOut} from './dispatcher-service.js'
import type {Cancelable} from './send.js'

/** An attempt out: where and since when, the delivery it claimed, what it runs, and whether it was let go. */
export interface Flight extends Cancelable {
  readonly out: AttemptOut
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
 * const flight = flights.open('dlv_1', 'we_1')
 * flight.run = attempt(flight).finally(() => flights.close('dlv_1'))
 */
export class Flights {
  readonly #out = new Map<string, Flight>()

  get size(): number {
    return this.#out.size
  }

  /** An attempt of delivery `id` to `endpointId` goes out now. */
  open(id: string, endpointId: string): Flight {
    const flight = {out: {endpointId, deliveryId: id, since: Date.now()}, letGo: false}
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

  /** Lets every attempt out go: the server stops. */
  stopAll(): void {
    for (const flight of this.#out.values()) letGo(flight)
  }

  /** Resolves when none is out. */
  async idle(): Promise<void> {
    while (this.#out.size > 0) await Promise.all([...this.#out.values()].map(({run}) => run))
  }

  /** Whether an attempt is out to `endpointId` (none to no endpoint). */
  outTo(endpointId: string | undefined): boolean {
    for (const {out} of this.#out.values()) if (out.endpointId === endpointId) return true
    return false
  }

  /** Each attempt out. */
  outs(): AttemptOut[] {
    return [...this.#out.values()].map(({out}) => out)
  }
}

/** Marks the attempt let go (its answer is not recorded), and cancels its request if it is out. */
function letGo(flight: Flight): void {
  flight.letGo = true
  flight.cancel?.()
}
