import {DueHeap} from './due-heap.js'
import {Fifo} from './fifo.js'

export interface SchedulerOptions {
  /** Attempts in flight at once, overall, from their start to their record (default 32). */
  concurrency?: number
  /**
   * An endpoint's places: attempts waiting on its answer at once (default 8; send-order.ts holds its requests
   * to them), within its fair share of `concurrency`.
   */
  perEndpoint?: number
  /**
   * Attempts one endpoint may start beyond `perEndpoint`, within its fair share (default 0): they make their
   * reads before a send (a claim on PostgreSQL) while the others wait on its receiver, and send as its places
   * free (send-order.ts).
   */
  ahead?: number
}

/** The default of `perEndpoint`. */
export const PER_ENDPOINT = 8

/** A pending delivery's place in the queues; a newer commit of the delivery replaces it, and the old one goes stale. */
export interface Entry {
  id: string
  endpointId: string
  /** Its endpoint's queue: the endpoint's id within its account, as ids a caller chose may be another account's too. */
  lane: string
  /** Scheduler time, ms. */
  due: number
  seq: number
  /** Its delivery had an attempt out when this was made: that attempt's end queues it. */
  held: boolean
}

/** One endpoint's due deliveries, in due order, and its attempts waiting on its receiver. */
interface Lane {
  key: string
  ready: Fifo<Entry>
  /** Its attempts started and still waiting for their answer: what its share counts. */
  inFlight: number
  /** In the rotation now. */
  queued: boolean
  /** Has due deliveries or attempts out: counted among the endpoints that share the slots. */
  busy: boolean
}

/**
 * Which due delivery to attempt next, as a function of what it was told:
 * no I/O, no timers, no clock of its own. Deliveries not yet due wait in a
 * heap ordered by due time; once due (`release`) they move to their
 * endpoint's queue, and free slots go to the endpoints with due work in
 * turn, each up to its fair share, so a slow receiver cannot hold up the
 * others. A commit or a finished attempt costs O(log n) in the deliveries
 * pending (docs/api.md "Webhooks", slow receivers and backlogs).
 *
 * @example
 * const scheduler = new Scheduler({concurrency: 32})
 * scheduler.track('dlv_1', 'we_1', Date.now(), 'acct_demo')
 * scheduler.release(Date.now())
 * const entry = scheduler.next() // dlv_1's entry, now out
 * scheduler.finish('dlv_1')
 */
export class Scheduler {
  /** The current entry of each pending delivery. */
  readonly #pending = new Map<string, Entry>()
  /** Entries not yet moved to their endpoint's queue, earliest due first; stale ones are dropped when met. */
  readonly #waiting = new DueHeap<Entry>()
  readonly #lanes = new Map<string, Lane>()
  /** Endpoints with due work and room, in turn. */
  readonly #rotation = new Fifo<Lane>()
  /** Endpoints with due work that have their fair share of slots: back in turn when an attempt of theirs ends. */
  readonly #overShare = new Set<Lane>()
  /** Deliveries with an attempt out, and their endpoint's lane until the attempt has its answer (`answered`). */
  readonly #out = new Map<string, Lane | undefined>()
  #busyLanes = 0
  /** Entries replaced or dropped since the heap was last swept. */
  #stale = 0
  #seq = 0
  /** Entries moved or skipped by the queues, besides the heap's own `visits`. */
  #visits = 0
  readonly #concurrency: number
  /** What one endpoint may hold at most: its places and the attempts ahead of them. */
  readonly #mostPerEndpoint: number

  constructor(options: SchedulerOptions = {}) {
    this.#concurrency = options.concurrency ?? 32
    this.#mostPerEndpoint = (options.perEndpoint ?? PER_ENDPOINT) + (options.ahead ?? 0)
  }

  /** Entries the queues have touched so far: a test reads it to pin that the work does not grow with the backlog. */
  get visits(): number {
    return this.#visits + this.#waiting.visits
  }

  /**
   * A delivery pending to the account's endpoint, due at `due` (scheduler ms): new, or written again (its
   * entry before goes stale).
   */
  track(id: string, endpointId: string, due: number, accountId = ''): void {
    const held = this.#out.has(id)
    const entry: Entry = {id, endpointId, lane: `${accountId}/${endpointId}`, due, seq: this.#seq++, held}
    // one lookup in a map of every pending delivery: set, then see whether it grew
    const size = this.#pending.size
    this.#pending.set(id, entry)
    if (this.#pending.size === size) this.#goneStale()
    if (!held) this.#waiting.push(entry)
  }

  /** A delivery no longer pending: its entry goes stale wherever it waits. */
  drop(id: string): void {
    if (this.#pending.delete(id)) this.#goneStale()
  }

  isCurrent(entry: Entry): boolean {
    return this.#pending.get(entry.id) === entry
  }

  /** The current entry of a pending delivery. */
  entry(id: string): Entry | undefined {
    return this.#pending.get(id)
  }

  /** Whether the delivery has an attempt out. */
  isOut(id: string): boolean {
    return this.#out.has(id)
  }

  /** Attempts out. */
  get out(): number {
    return this.#out.size
  }

  /** Some endpoint has due work in turn: it waits only for a free slot (or its turn). */
  get waitingForSlot(): boolean {
    return this.#rotation.length > 0
  }

  /** Whether `next` may have an attempt to start: a slot is free and an endpoint with due work is in turn. */
  get canStart(): boolean {
    return this.#out.size < this.#concurrency && this.#rotation.length > 0
  }

  /** The earliest due time of the entries not yet due, if any. */
  nextDue(): number | undefined {
    return this.nextWaiting()?.due
  }

  /** The entry not yet due that falls due first, if any. */
  nextWaiting(): Entry | undefined {
    for (let top = this.#waiting.peek(); top !== undefined; top = this.#waiting.peek()) {
      if (this.isCurrent(top)) return top
      this.#waiting.pop()
    }
    return undefined
  }

  /** Whether `holds` says so of the lane of an entry that falls due first (all due at one time, released together). */
  someDueNext(holds: (lane: string) => boolean): boolean {
    this.nextWaiting()
    return this.#waiting.someDueFirst((entry) => this.isCurrent(entry) && holds(entry.lane))
  }

  /** Moves every entry due by `now` (scheduler ms) to its endpoint's queue. */
  release(now: number): void {
    for (let top = this.#waiting.peek(); top !== undefined && top.due <= now; top = this.#waiting.peek()) {
      this.#waiting.pop()
      if (this.isCurrent(top)) this.#ready(top)
    }
  }

  /** Queues an entry again whose attempt did not start (another instance held it), unless it is stale or out. */
  requeue(entry: Entry): void {
    if (this.isCurrent(entry) && !this.#out.has(entry.id)) this.#ready(entry)
  }

  /**
   * The next endpoint in turn starts its next due delivery: the entry now
   * out, or undefined when that endpoint holds its share or had only stale
   * entries (call again while `canStart`).
   */
  next(): Entry | undefined {
    const lane = this.#rotation.shift()
    if (!lane) return undefined
    lane.queued = false
    // its share may have shrunk since it was queued: more endpoints have work now
    if (lane.inFlight >= this.#share()) {
      this.#overShare.add(lane)
      return undefined
    }
    const entry = this.#nextReady(lane)
    if (entry) {
      lane.inFlight++
      this.#out.set(entry.id, lane)
    }
    this.#settle(lane)
    this.#offer(lane)
    return entry
  }

  /**
   * The attempt of `id` has its answer: its endpoint's place is free for the next attempt, while this one
   * stays out, holding one of the `concurrency` places, until `finish` (its record). Whether a place was freed.
   */
  answered(id: string): boolean {
    const lane = this.#out.get(id)
    if (!lane) return false
    this.#out.set(id, undefined)
    this.#leave(lane)
    return true
  }

  /** The attempt of `id` ended: its places are free, and a retry recorded meanwhile waits its turn now. */
  finish(id: string): void {
    const lane = this.#out.get(id)
    if (!this.#out.delete(id)) return
    const next = this.#pending.get(id)
    if (next?.held) {
      next.held = false
      this.#waiting.push(next)
    }
    if (lane) this.#leave(lane)
  }

  /** One of the endpoint's attempts gave its place back. */
  #leave(lane: Lane): void {
    lane.inFlight--
    this.#settle(lane)
    this.#offer(lane)
  }

  #goneStale(): void {
    // stale entries are dropped as the heap meets them; a sweep keeps far-off ones (canceled retries) from piling up
    if (++this.#stale > 1024 && this.#stale > this.#waiting.size / 2) {
      this.#waiting.retain((entry) => this.isCurrent(entry))
      this.#stale = 0
    }
  }

  #ready(entry: Entry): void {
    const lane = this.#lane(entry.lane)
    lane.ready.push(entry)
    this.#settle(lane)
    this.#offer(lane)
  }

  #lane(key: string): Lane {
    let lane = this.#lanes.get(key)
    if (!lane) {
      lane = {key, ready: new Fifo(), inFlight: 0, queued: false, busy: false}
      this.#lanes.set(key, lane)
    }
    return lane
  }

  /**
   * Slots one endpoint may hold: an equal part of them among the endpoints
   * with work plus one, so that there is room for an endpoint whose work
   * comes next; within the per-endpoint limit.
   */
  #share(): number {
    return Math.min(this.#mostPerEndpoint, Math.max(1, Math.ceil(this.#concurrency / (this.#busyLanes + 1))))
  }

  /** Puts an endpoint with due work in the rotation, or aside while it holds its share. */
  #offer(lane: Lane): void {
    if (lane.queued || lane.ready.length === 0) return
    if (lane.inFlight >= this.#share()) {
      this.#overShare.add(lane)
      return
    }
    this.#overShare.delete(lane)
    lane.queued = true
    this.#rotation.push(lane)
  }

  /** Keeps the count of endpoints with work; one that has none left widens the others' share. */
  #settle(lane: Lane): void {
    const busy = lane.ready.length > 0 || lane.inFlight > 0
    if (busy === lane.busy) return
    const share = this.#share()
    lane.busy = busy
    this.#busyLanes += busy ? 1 : -1
    if (busy) return
    if (!lane.queued) this.#lanes.delete(lane.key)
    // the share grows only at a few counts (32 among 40 endpoints is 1 each, as among 31)
    if (this.#overShare.size === 0 || this.#share() === share) return
    const waiting = [...this.#overShare]
    this.#overShare.clear()
    for (const other of waiting) this.#offer(other)
  }

  /** The endpoint's next due delivery still pending, skipping entries gone stale. */
  #nextReady(lane: Lane): Entry | undefined {
    for (let entry = lane.ready.shift(); entry !== undefined; entry = lane.ready.shift()) {
      this.#visits++
      if (this.isCurrent(entry) && !this.#out.has(entry.id)) return entry
    }
    return undefined
  }
}
