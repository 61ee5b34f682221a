import {fanOut, redeliver, wants} from '../domain/deliveries.js'
import {endpointKey} from '../domain/endpoints.js'
import type {
  CollectionName,
  DeliveryRecord,
  EventRecord,
  FanOutRecord,
  WebhookEndpointRecord,
} from '../domain/records.js'
import type {Background} from '../webhooks/background.js'
import {Fifo} from '../webhooks/fifo.js'
import type {DeliveryQueue, ServiceContext} from './context.js'
import {moveLegacyMarks} from './legacy-marks.js'
import type {Change, UnitOfWork} from './storage.js'

/** Those of `eventIds` whose deliveries are still to be written (retention keeps them meanwhile). */
export const fanningOut = async (tx: UnitOfWork, eventIds: readonly string[]): Promise<Set<string>> =>
  new Set((await tx.getMany('fan_outs', eventIds)).flatMap((mark, i) => (mark ? [eventIds[i]!] : [])))

/** What a fan-out writes: new deliveries, and the chaos that endpoints draw for them. */
const FANNED_OUT: ReadonlySet<CollectionName> = new Set(['deliveries', 'webhook_endpoints'])

/** What a unit of work reads, by which the outbox tells whether it waits for the fan-outs queued before it. */
export interface UnitReads {
  /**
   * The collections the unit reads, as the changes acknowledged before it left them: one that reads what a
   * fan-out writes (FANNED_OUT) runs once the fan-outs queued before it are written. Not counted: a delivery
   * the caller holds (a fan-out adds deliveries, and changes none), and the endpoints `publish` reads (it
   * keeps its events after those marked before them itself).
   */
  reads: readonly CollectionName[]
  /** The account whose records the unit writes, when it begins by reading another's key (`UnitOfWork.writesTo`). */
  account?: string
}

/** A change that makes at most this many deliveries writes them itself: a mark and a later unit would cost more. */
const INLINE_DELIVERIES = 8
/** Deliveries one background unit writes (then ends with its event): a ms or two of work, so requests wait little behind it. */
const FAN_OUT_BATCH = 256
/**
 * While requests keep the server busy, fan-outs write about one delivery per this many ms (2,000 a
 * second), in units of a few events: the deliveries, and the attempts that follow them, take a small
 * share of the server then, and all of it once the requests stop.
 */
const BUSY_MS_PER_DELIVERY = 0.5
const BUSY_BATCH = 32

/**
 * Events and their deliveries: every write of the service is a `unit` of
 * the outbox, which tells the delivery queue directly of the deliveries a
 * unit wrote once they are durable (docs/api.md "Webhooks").
 *
 * A change stores its events in its own unit of work, so a change is never
 * stored without them, and their deliveries with them when there are a few
 * (INLINE_DELIVERIES). When there are more, on a storage of its own (not
 * PostgreSQL), they are written just after, by a unit in the background, in
 * the order of the events: a push to 100 endpoints then costs a push, not
 * 100 records (docs/storage.md, "Deferred fan-out"). A mark (`fan_outs`)
 * names each event until its deliveries are written, so a restart finishes
 * what a crash interrupted. A unit that reads deliveries or endpoints waits
 * for the fan-outs queued before it (`UnitReads`), and so does a read of
 * them outside units (`after`).
 */
export class Outbox {
  #queue: DeliveryQueue | undefined
  readonly #durable: DeliveryQueue = (changes) => this.#onDurable(changes)
  /** True when fan-outs run in the background: not on a storage other instances share. */
  readonly #deferred: boolean
  /** Ids of the events whose deliveries are still to be written, oldest first. */
  readonly #waiting = new Fifo<string>()
  // Three counts of marks, since a mark passes three points: written in a unit, durable, fanned out.
  /** Marks written, durable or not: `publish` writes deliveries itself only once every one is fanned out, so in order. */
  #marked = 0
  /** Marks durable, so queued: `flush` waits for these only, the marks of changes acknowledged (a unit may yet fail). */
  #queued = 0
  /** Marks whose fan-out has run: behind while fewer than those queued. */
  #fanned = 0
  #running: Promise<number> | undefined
  #scheduled: NodeJS.Immediate | NodeJS.Timeout | undefined
  #closed = false

  constructor(
    readonly context: ServiceContext,
    /** Whether requests keep the server busy: fan-outs step back meanwhile (src/webhooks/background.ts). */
    readonly background: Background,
  ) {
    this.#deferred = context.storage.shared === undefined
  }

  /**
   * The one queue told of new and changed deliveries (the dispatcher); it reads what was pending on its
   * own. Events a stopped server left without their deliveries are queued for their fan-out.
   */
  async attach(queue: DeliveryQueue): Promise<void> {
    this.#queue = queue
    if (!this.#deferred) return
    const {storage} = this.context
    await moveLegacyMarks(storage)
    for (const {id} of await storage.all('fan_outs')) this.#recover(id)
    this.#schedule()
  }

  /**
   * Runs `work` as one unit of work and resolves with its value once durable; one that `reads` what a
   * fan-out writes runs once the fan-outs queued before it are written.
   *
   * @example
   * const endpoint = await outbox.unit({reads: ['webhook_endpoints']}, (tx) => tx.get('webhook_endpoints', id))
   */
  unit<T>({reads, account}: UnitReads, work: (tx: UnitOfWork) => Promise<T>): Promise<T> {
    const declared = (tx: UnitOfWork) => {
      if (account !== undefined) tx.writesTo(account)
      return work(tx)
    }
    return this.after(reads, () => this.context.storage.unit(declared, this.#durable))
  }

  /**
   * `run()`, once a read of `reads` sees the deliveries of every change acknowledged so far: at once when
   * none of them is what a fan-out writes, or no fan-out is queued.
   *
   * @example
   * const deliveries = await outbox.after(['deliveries'], () => storage.list('deliveries', accountId))
   */
  after<T>(reads: readonly CollectionName[], run: () => Promise<T>): Promise<T> {
    // no extra turn for a read of anything else, or with nothing behind: the push path reads keys and checks
    return this.#fanned < this.#queued && reads.some((name) => FANNED_OUT.has(name)) ? this.flush().then(run) : run()
  }

  /**
   * `unit`, run when no event has its deliveries still to write: a save of the account then holds each of its
   * events with its deliveries (the marks, `fan_outs`, are not saved). A unit that finds marks left ends
   * having written nothing, waits for their fan-outs, and runs again.
   */
  async unitFannedOut<T>(reads: UnitReads, work: (tx: UnitOfWork) => Promise<T>): Promise<T> {
    for (;;) {
      const done = await this.unit(reads, async (tx) => {
        if (this.#deferred && (await tx.all('fan_outs')).length > 0) return undefined
        return {value: await work(tx)}
      })
      if (done) return done.value
      // the marks durable, so queued, then written out; marks not yet heard of: their writes end first
      await this.context.storage.settled()
      await this.flush()
      await new Promise((resolve) => setImmediate(resolve))
    }
  }

  /** Resolves once the deliveries of every event queued so far are written. */
  async flush(): Promise<void> {
    const target = this.#queued
    while (this.#fanned < target) await this.#run()
  }

  /** Stops the background fan-outs; resolves once the one running has ended. The rest wait for the next start. */
  async close(): Promise<void> {
    this.#closed = true
    clearTimeout(this.#scheduled as NodeJS.Timeout)
    clearImmediate(this.#scheduled as NodeJS.Immediate)
    await this.#running?.catch(() => {})
  }

  /**
   * Writes `events`, with a delivery of each to every endpoint of its account that wants it, due now:
   * in this unit when they are few or the storage is shared, else in one just after (marked meanwhile).
   */
  async publish(tx: UnitOfWork, events: readonly EventRecord[]): Promise<void> {
    if (events.length === 0) return
    const due = this.context.clock.now()
    // all events, then the rest: the journal writes a run of one collection in its short form
    for (const event of events) tx.put('events', event.id, event)
    const account = events[0]!.account_id
    const endpoints = await tx.list('webhook_endpoints', account)
    // on a shared storage always here; else a few deliveries, which cost less than their marks, and only
    // with none marked before them, so in order
    if (!this.#deferred || (this.#marked === this.#fanned && wanted(events, endpoints) <= INLINE_DELIVERIES)) {
      const run = new FanOutRun(tx, [account, endpoints])
      for (const event of events) await run.add(event, due)
      return run.end()
    }
    for (const event of events) {
      // an event no endpoint wants needs no fan-out, now or later
      if (!endpoints.some((endpoint) => wants(endpoint, event))) continue
      const mark: FanOutRecord = {id: event.id, account_id: '', due}
      tx.put('fan_outs', mark.id, mark)
      this.#marked++
    }
  }

  /**
   * Writes one new delivery of each of `events` to `endpoint`, due now, in their order (resend,
   * recover), and the endpoint that counts them (and draws their chaos).
   */
  redeliver(tx: UnitOfWork, endpoint: WebhookEndpointRecord, events: readonly EventRecord[]): DeliveryRecord[] {
    const made = redeliver(events, endpoint, this.context.clock.now(), this.context.now())
    if (made.deliveries.length === 0) return made.deliveries
    for (const delivery of made.deliveries) tx.put('deliveries', delivery.id, delivery)
    tx.put('webhook_endpoints', endpointKey(endpoint), made.endpoint)
    return made.deliveries
  }

  #onDurable(changes: readonly Change[]): void {
    if (this.#deferred) {
      const before = this.#queued
      for (const [collection, id, record] of changes)
        if (collection === 'fan_outs' && record !== null) this.#enqueue(id)
      if (this.#queued !== before) this.#schedule()
    }
    this.#queue?.(changes)
  }

  #enqueue(id: string): void {
    this.#waiting.push(id)
    this.#queued++
  }

  /** Marks a stopped server left: queued at start, and counted as written. */
  #recover(id: string): void {
    this.#enqueue(id)
    this.#marked++
  }

  /** Runs the next unit of fan-outs on a later turn of the loop; `rest` ms later while requests keep coming. */
  #schedule(rest = 0): void {
    if (this.#scheduled || this.#closed || this.#waiting.length === 0) return
    const step = () => {
      this.#scheduled = undefined
      const busy = this.background.busy
      this.#run(busy ? BUSY_BATCH : FAN_OUT_BATCH).then(
        (written) => this.#schedule(busy ? written * BUSY_MS_PER_DELIVERY : 0),
        // a storage that failed fails every unit from now on, and each answer says so: nothing to do here
        () => {},
      )
    }
    // after the I/O already waiting, so requests that arrived meanwhile go first
    this.#scheduled = rest > 0 && this.background.busy ? setTimeout(step, rest) : setImmediate(step)
  }

  /** The next unit of fan-outs, of about `size` deliveries, or the one running; resolves with how many it wrote. */
  #run(size = FAN_OUT_BATCH): Promise<number> {
    return (this.#running ??= this.#batch(size).finally(() => (this.#running = undefined)))
  }

  /** Writes the deliveries of the next events, oldest first, until about `size` are written, in one unit; takes their marks off. */
  async #batch(size: number): Promise<number> {
    let taken = 0
    try {
      return await this.context.storage.unit(async (tx) => {
        const run = new FanOutRun(tx)
        while (run.written < size && this.#waiting.length > 0) {
          const id = this.#waiting.shift()!
          taken++
          // written already (a change heard twice): nothing to do
          const mark = await tx.get('fan_outs', id)
          if (mark === undefined) continue
          tx.delete('fan_outs', id)
          // gone with a reset or its account: nothing to deliver
          const event = await tx.get('events', id)
          if (event) await run.add(event, mark.due)
        }
        run.end()
        return run.written
      }, this.#durable)
    } finally {
      this.#fanned += taken
    }
  }
}

/** How many deliveries `events` make to `endpoints`. */
function wanted(events: readonly EventRecord[], endpoints: readonly WebhookEndpointRecord[]): number {
  let count = 0
  for (const event of events) for (const endpoint of endpoints) if (wants(endpoint, event)) count++
  return count
}

/**
 * The deliveries of the events of one unit of work: each account's endpoints read once, and an
 * endpoint's chaos draws carried from one event to the next (its own reads do not see its writes).
 */
class FanOutRun {
  readonly #endpoints = new Map<string, WebhookEndpointRecord[]>()
  readonly #drawn = new Map<string, WebhookEndpointRecord>()
  written = 0

  constructor(
    readonly tx: UnitOfWork,
    /** An account's endpoints, read already. */
    known?: [string, WebhookEndpointRecord[]],
  ) {
    if (known) this.#endpoints.set(...known)
  }

  /** Writes a delivery of `event`, due at `due` (scheduler ms), to every endpoint of its account that wants it. */
  async add(event: EventRecord, due: number): Promise<void> {
    const account = event.account_id
    const endpoints = this.#endpoints.get(account) ?? (await this.tx.list('webhook_endpoints', account))
    const {deliveries, stirred} = fanOut(event, endpoints, due)
    for (const delivery of deliveries) this.tx.put('deliveries', delivery.id, delivery)
    this.written += deliveries.length
    if (stirred.length === 0) return void this.#endpoints.set(account, endpoints)
    // endpoints under chaos draw once per delivery: a later event must see the draws before it. By the stored
    // key: two accounts may each have an endpoint of one chosen id
    for (const endpoint of stirred) this.#drawn.set(endpointKey(endpoint), endpoint)
    this.#endpoints.set(
      account,
      endpoints.map((endpoint) => this.#drawn.get(endpointKey(endpoint)) ?? endpoint),
    )
  }

  /** Writes the endpoints whose chaos drew. */
  end(): void {
    for (const endpoint of this.#drawn.values()) this.tx.put('webhook_endpoints', endpointKey(endpoint), endpoint)
  }
}
