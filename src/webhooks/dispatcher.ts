import {
  type AttemptOptions,
  type AttemptResult,
  attemptMadeAt,
  DISABLE_AFTER,
  RETRY_SCHEDULE,
  succeeded,
} from '../domain/deliveries.js'
import {signingSecrets} from '../domain/endpoints.js'
import {renderEvent} from '../domain/events.js'
import type {DeliveryRecord, EventRecord, WebhookEndpointRecord} from '../domain/records.js'
import {recordJson} from '../store/json-text.js'
import type {Change} from '../store/store.js'
import {type SchedulerClock, wallClockIso} from './clock.js'
import {DueHeap} from './due-heap.js'
import {Fifo} from './fifo.js'
import {deliveryHeaders, postDelivery, RECEIVER_TIMEOUT_MS} from './send.js'

export interface DispatcherOptions {
  schedule?: readonly number[]
  disableAfter?: number
  timeoutMs?: number
  /** Attempts in flight at once, overall (default 32). */
  concurrency?: number
  /** At most this many per endpoint (default 8), and never more than its fair share of `concurrency`. */
  perEndpoint?: number
}

/** What the dispatcher asks of the service (`service.deliveries`): it never reads or writes the storage itself. */
export interface DeliveryLedger {
  /** Makes `queue` the one told of every delivery written, once durable; returns those pending now. */
  attach(queue: (changes: readonly Change[]) => void): Promise<DeliveryRecord[]>
  get(id: string): Promise<DeliveryRecord | undefined>
  /**
   * The delivery, for the attempt due at `dueAt`, once this instance has claimed it for `leaseMs`; `'held'`
   * while another live instance holds that attempt, `'made'` once another instance has made it (several
   * instances on one database); undefined when nothing is left to attempt (canceled, retried or deleted meanwhile).
   */
  claim(id: string, dueAt: number, leaseMs: number): Promise<DeliveryRecord | 'held' | 'made' | undefined>
  /** Set once a write failed. */
  readonly failure: Error | undefined
  target(delivery: DeliveryRecord): Promise<{endpoint: WebhookEndpointRecord; event: EventRecord} | undefined>
  cancel(delivery: DeliveryRecord, now: string): Promise<void>
  /** Resolves with the endpoint as it is once the attempt is recorded: undefined once deleted. */
  recordAttempt(
    id: string,
    endpoint: WebhookEndpointRecord,
    result: AttemptResult,
    options: AttemptOptions,
  ): Promise<WebhookEndpointRecord | undefined>
  /** Records the chaos duplicate sent after a success, as one more attempt marked `duplicate: true`. */
  recordDuplicate(id: string, result: AttemptResult, now: string): Promise<void>
}

/** The parts of the service the dispatcher uses: the deliveries, and where the clock's offset is saved. */
export interface DispatcherService {
  deliveries: DeliveryLedger
  /** While requests keep the server busy, attempts start at a small pace (docs/storage.md, "Deferred fan-out"). */
  background: {mayStart(): boolean; started(): void}
  sim: {
    saveClockOffset(offset: number): Promise<void>
    /** Other instances may share the clock (one database): they save it, and this one follows. */
    readonly shared: boolean
    clockOffset(): Promise<number>
    /** Calls `listener` with each offset another instance saves. */
    followClock(listener: (offset: number) => void): () => void
  }
}

/**
 * A claim's lease outlasts the attempt it covers: the receiver timeout, then
 * this long to record what came of it. It runs on the database's wall clock,
 * which `clock advance` does not move (docs/postgres.md).
 */
export const LEASE_MARGIN_MS = 30_000

/** How often a due delivery that another live instance holds is claimed again, in ms: in case that one died. */
export const CLAIM_RECHECK_MS = 1000

/** How soon attempts held back while requests keep the server busy are looked at again, in ms. */
const PACED_RETRY_MS = 1

/** A pending delivery's place in the queues; a newer commit of the delivery replaces it, and the old one goes stale. */
interface Entry {
  id: string
  endpointId: string
  due: number
  seq: number
  /** Its delivery had an attempt out when this was made: that attempt's end queues it. */
  held: boolean
}

/** One endpoint's due deliveries, in due order, and its attempts out. */
interface Lane {
  endpointId: string
  ready: Fifo<Entry>
  inFlight: number
  /** In the rotation now. */
  queued: boolean
  /** Has due deliveries or attempts out: counted among the endpoints that share the slots. */
  busy: boolean
  /** Resolves once the attempt started last has sent its request, or given up before sending. */
  sent: Promise<void>
}

/** An attempt out, as `GET /sim/clock` shows what an advance waits for. */
export interface AttemptOut {
  endpointId: string
  deliveryId: string
  /** Wall clock, ms. */
  since: number
}

/**
 * The server's line for an attempt that failed on our side. A storage out of reach (a failed
 * data dir, reported once already; a database, which comes back) gets one line that says what
 * becomes of the delivery; anything else keeps its stack, for a bug report.
 */
function attemptFailure(id: string, error: Error, storageFailure: Error | undefined): string {
  if (!storageFailure && error.name !== 'DatabaseUnavailable')
    return `[tablepay] delivery ${id}: ${error.stack ?? error}`
  return (
    `[tablepay] delivery ${id}: its attempt could not be recorded (${error.message}). ` +
    'It stays pending and is attempted again once the storage works: at once when a database is back, after a restart for a data dir.'
  )
}

let lastDueIso = ''
let lastDueMs = NaN

/** A due time in ms. The deliveries of one event share theirs: a push to 100 endpoints parses it once. */
function dueMs(iso: string): number {
  if (iso !== lastDueIso) {
    lastDueIso = iso
    lastDueMs = Date.parse(iso)
  }
  return lastDueMs
}

/**
 * Sends due deliveries and records their attempts through the service. The
 * service tells it of every delivery it writes once durable (its own
 * attempts' too); it keeps one timer for the earliest due one, and at start
 * picks up whatever was pending (or in flight) when the server stopped:
 * delivery is at-least-once.
 *
 * Deliveries not yet due wait in a heap ordered by due time; once due they
 * move to their endpoint's queue, and free slots go to the endpoints with
 * due work in turn, each up to its fair share, so a slow receiver cannot
 * hold up the others. A commit or a finished attempt costs O(log n) in the
 * deliveries pending (docs/api.md "Webhooks", slow receivers and backlogs).
 */
export class Dispatcher {
  /** The current entry of each pending delivery. */
  readonly #pending = new Map<string, Entry>()
  /** Entries not yet moved to their endpoint's queue, earliest due first; stale ones are dropped when met. */
  readonly #waiting = new DueHeap<Entry>()
  readonly #lanes = new Map<string, Lane>()
  /** Endpoints with due work and room, in turn. */
  readonly #rotation = new Fifo<Lane>()
  /** Endpoints with due work that have their fair share of slots: back in turn when an attempt of theirs ends. */
  readonly #overShare = new Set<Lane>()
  #busyLanes = 0
  readonly #inFlight = new Map<string, {run: Promise<void>; out: AttemptOut}>()
  /** Entries replaced or dropped since the heap was last swept. */
  #stale = 0
  #seq = 0
  /** Entries moved or skipped by the queues, besides the heap's own `visits`. */
  #visits = 0
  #timer: NodeJS.Timeout | undefined
  /** Scheduler time the timer fires at (Infinity: none set). */
  #timerAt = Infinity
  /** The last `advance` or `reset` asked for: they run one after another. */
  #advancing: Promise<unknown> = Promise.resolve()
  /** True while `advance` drives the clock, so no real-time timer moves it too. */
  #driven = false
  /** Where the running `advance` goes (scheduler ms), for its progress. */
  #target: number | undefined
  /** Attempts sent so far; `advance` reports the difference. */
  #sent = 0
  /** Woken when an attempt ends: `advance` waits on it. */
  #ended: (() => void)[] = []
  /** Due deliveries whose attempt another live instance holds (one database): claimed again now and then. */
  readonly #contested = new Map<string, {entry: Entry; since: number}>()
  #recheck: NodeJS.Timeout | undefined
  /** Set while attempts wait for their pace (requests keep the server busy). */
  #paced: NodeJS.Timeout | undefined
  /** Attempts of other instances that this one saw end while it waited for them. */
  #endedElsewhere = 0
  /** Clock offsets saved by other instances, applied one after another in the order they come. */
  #following: Promise<void> = Promise.resolve()
  #unfollow: (() => void) | undefined
  #closed = false

  constructor(
    readonly service: DispatcherService,
    readonly clock: SchedulerClock,
    readonly options: DispatcherOptions = {},
  ) {}

  /** Starts delivering: from now on the service tells it of new deliveries, and those pending already go first. */
  async start(): Promise<void> {
    this.#unfollow = this.service.sim.followClock((offset) => void this.#follow(() => offset))
    for (const delivery of await this.service.deliveries.attach((changes) => this.#onCommit(changes)))
      this.#track(delivery)
    this.#pump()
  }

  /**
   * Entries the queues have touched so far. A test reads it around a commit
   * to pin that the work does not grow with the number pending.
   */
  get visits(): number {
    return this.#visits + this.#waiting.visits
  }

  // on the push path: a commit costs one heap push per new delivery
  #onCommit(changes: readonly Change[]): void {
    if (this.#closed) return
    let added = false
    for (const [collection, id, record] of changes) {
      if (collection !== 'deliveries') continue
      const waited = this.#contested.size > 0 ? this.#contested.get(id) : undefined
      // another instance that held the attempt this one waited for has written the delivery: an advance counts the
      // attempt if that is its record, not when it canceled the delivery unsent (its endpoint disabled or deleted)
      if (waited) {
        this.#contested.delete(id)
        if (record && attemptMadeAt(record as DeliveryRecord, waited.entry.due)) this.#endedElsewhere++
        this.#wake()
      } else if (this.service.sim.shared) this.#madeElsewhere(id, record as DeliveryRecord | null)
      if (record?.status === 'pending') {
        this.#track(record as DeliveryRecord)
        added = true
      } else if (this.#pending.delete(id)) {
        this.#stale++
      }
    }
    // stale entries are dropped as the heap meets them; a sweep keeps far-off ones (canceled retries) from piling up
    if (this.#stale > 1024 && this.#stale > this.#waiting.size / 2) {
      this.#waiting.retain((entry) => this.#pending.get(entry.id) === entry)
      this.#stale = 0
    }
    if (added) this.#pump()
  }

  /**
   * Another instance made the attempt this one had queued and not yet
   * started, its slots being taken: an advance counts it here. One started
   * here is counted by its claim (#attempt), one waited for above.
   */
  #madeElsewhere(id: string, record: DeliveryRecord | null): void {
    const entry = this.#pending.get(id)
    if (entry === undefined || record === null || this.#inFlight.has(id)) return
    if (attemptMadeAt(record, entry.due)) this.#endedElsewhere++
  }

  /** Whether the delivery, as stored now, has had its attempt due at `dueAt` made. */
  async #madeAt(id: string, dueAt: number): Promise<boolean> {
    const latest = await this.service.deliveries.get(id)
    return latest !== undefined && attemptMadeAt(latest, dueAt)
  }

  #track(delivery: DeliveryRecord): void {
    const held = this.#inFlight.has(delivery.id)
    const due = dueMs(delivery.next_attempt_at!)
    const entry: Entry = {id: delivery.id, endpointId: delivery.endpoint_id, due, seq: this.#seq++, held}
    // one lookup in a map of every pending delivery: set, then see whether it grew
    const size = this.#pending.size
    this.#pending.set(delivery.id, entry)
    if (this.#pending.size === size) this.#stale++
    if (!held) this.#waiting.push(entry)
  }

  #isCurrent(entry: Entry): boolean {
    return this.#pending.get(entry.id) === entry
  }

  #lane(endpointId: string): Lane {
    let lane = this.#lanes.get(endpointId)
    if (!lane) {
      lane = {endpointId, ready: new Fifo(), inFlight: 0, queued: false, busy: false, sent: Promise.resolve()}
      this.#lanes.set(endpointId, lane)
    }
    return lane
  }

  /**
   * Moves every entry now due to its endpoint's queue, starts what there is
   * room for, then sets the timer for the next due time. While `advance`
   * drives the clock it sets no timer: advance decides when the clock moves.
   */
  #pump(): void {
    if (this.#closed) return
    // after a failed journal write no attempt can be recorded: its delivery would stay due and be sent again at once, forever
    if (this.service.deliveries.failure) {
      // a database comes back, though (docs/postgres.md): look again every so often
      if (this.service.sim.shared) this.#recheck ??= setTimeout(() => this.#claimAgain(), CLAIM_RECHECK_MS).unref()
      return
    }
    const now = this.clock.now()
    for (let top = this.#waiting.peek(); top !== undefined && top.due <= now; top = this.#waiting.peek()) {
      this.#waiting.pop()
      if (!this.#isCurrent(top)) continue
      const lane = this.#lane(top.endpointId)
      lane.ready.push(top)
      this.#settle(lane)
      this.#offer(lane)
    }
    this.#startReady()
    if (!this.#driven) this.#arm()
  }

  #concurrency(): number {
    return this.options.concurrency ?? 32
  }

  /**
   * Slots one endpoint may hold: an equal part of them among the endpoints
   * with work plus one, so that there is room for an endpoint whose work
   * comes next; within the per-endpoint limit.
   */
  #share(): number {
    return Math.min(this.options.perEndpoint ?? 8, Math.max(1, Math.ceil(this.#concurrency() / (this.#busyLanes + 1))))
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
    if (!lane.queued) this.#lanes.delete(lane.endpointId)
    // the share grows only at a few counts (32 among 40 endpoints is 1 each, as among 31)
    if (this.#overShare.size === 0 || this.#share() === share) return
    const waiting = [...this.#overShare]
    this.#overShare.clear()
    for (const other of waiting) this.#offer(other)
  }

  /** One attempt per endpoint in turn while there are free slots. */
  #startReady(): void {
    const {background} = this.service
    while (this.#inFlight.size < this.#concurrency()) {
      if (this.#rotation.length === 0) return
      if (!background.mayStart()) {
        this.#paced ??= setTimeout(() => {
          this.#paced = undefined
          this.#pump()
        }, PACED_RETRY_MS)
        return
      }
      const lane = this.#rotation.shift()!
      lane.queued = false
      // its share may have shrunk since it was queued: more endpoints have work now
      if (lane.inFlight >= this.#share()) {
        this.#overShare.add(lane)
        continue
      }
      const entry = this.#nextReady(lane)
      if (entry) {
        background.started()
        this.#start(entry, lane)
      }
      this.#settle(lane)
      this.#offer(lane)
    }
  }

  /** The endpoint's next due delivery still pending, skipping entries gone stale. */
  #nextReady(lane: Lane): Entry | undefined {
    for (let entry = lane.ready.shift(); entry !== undefined; entry = lane.ready.shift()) {
      this.#visits++
      if (this.#isCurrent(entry) && !this.#inFlight.has(entry.id)) return entry
    }
    return undefined
  }

  /** The earliest entry not yet due that is still current. */
  #nextWaiting(): Entry | undefined {
    for (let top = this.#waiting.peek(); top !== undefined; top = this.#waiting.peek()) {
      if (this.#isCurrent(top)) return top
      this.#waiting.pop()
    }
    return undefined
  }

  /** Sets the timer for the earliest due time, unless one set already fires by then. */
  #arm(): void {
    const next = this.#nextWaiting()?.due ?? Infinity
    if (this.#timer !== undefined && this.#timerAt <= next) return
    this.#disarm()
    if (next === Infinity) return
    this.#timerAt = next
    const fire = () => {
      this.#timer = undefined
      this.#timerAt = Infinity
      this.#pump()
    }
    this.#timer = setTimeout(fire, Math.min(this.clock.realDelayUntil(next), 2 ** 31 - 1)).unref()
  }

  #disarm(): void {
    clearTimeout(this.#timer)
    this.#timer = undefined
    this.#timerAt = Infinity
  }

  #start(entry: Entry, lane: Lane): void {
    lane.inFlight++
    // an attempt sends only after the endpoint's earlier ones have: the reads before a send (a claim on
    // PostgreSQL) may end in any order, and a receiver should see its deliveries in due order
    const turn = lane.sent
    let sent!: () => void
    lane.sent = new Promise<void>((resolve) => (sent = resolve))
    const run = this.#attempt(entry, turn, sent)
      .catch((error) => {
        console.error(attemptFailure(entry.id, error as Error, this.service.deliveries.failure))
        // on a database that was lost for a moment, the attempt is claimed (its own lease) and made again
        if (this.service.sim.shared) this.#contest(entry)
      })
      .finally(() => {
        // one that ended without sending lets the next one go
        sent()
        this.#finish(entry.id, lane)
      })
    const out = {endpointId: lane.endpointId, deliveryId: entry.id, since: Date.now()}
    this.#inFlight.set(entry.id, {run, out})
  }

  #finish(id: string, lane: Lane): void {
    this.#inFlight.delete(id)
    lane.inFlight--
    // the attempt recorded a retry (or someone requeued the delivery) while it was out: it waits its turn now
    const next = this.#pending.get(id)
    if (next?.held) {
      next.held = false
      this.#waiting.push(next)
    }
    this.#settle(lane)
    this.#offer(lane)
    this.#pump()
    this.#wake()
  }

  #wake(): void {
    for (const wake of this.#ended.splice(0)) wake()
  }

  get #leaseMs(): number {
    return this.timeoutMs + LEASE_MARGIN_MS
  }

  async #attempt(entry: Entry, turn: Promise<void>, sent: () => void): Promise<void> {
    const {deliveries} = this.service
    const dueAt = entry.due
    // waited for already: its record, once it arrives, is what an advance counts (#onCommit)
    const contested = this.#contested.size > 0 && this.#contested.has(entry.id)
    // a commit may have ended it since it was queued, one the queues have not heard of yet; or another instance holds it
    const delivery = await deliveries.claim(entry.id, dueAt, this.#leaseMs)
    if (delivery === 'held') {
      // another instance has it out, and an advance counts it when that one's record arrives; if the delivery was
      // written while this claim was out (the entry is stale now), it counts here when the delivery shows the
      // attempt (it may have been canceled unsent instead), unless this instance waited for it already (#onCommit
      // counted it then)
      if (this.#isCurrent(entry)) return this.#contest(entry)
      if (!contested && (await this.#madeAt(entry.id, dueAt))) this.#endedElsewhere++
      return
    }
    // claimed now, or nothing is left to claim
    if (contested) this.#contested.delete(entry.id)
    // another instance made it before this one could claim it: an advance counts it once, here
    if (delivery === 'made' && !contested) this.#endedElsewhere++
    // nothing was sent, so an advance counts nothing (docs/api.md, "Webhooks", the scheduler clock)
    if (delivery === 'made' || delivery?.status !== 'pending') return
    const target = await deliveries.target(delivery)
    if (!target) return deliveries.cancel(delivery, wallClockIso())
    const {endpoint, event} = target
    // event records never change, so the body is the same bytes on every attempt; the resource
    // in `data` is serialized once for the journal and every endpoint (store/json-text.ts)
    const body = recordJson(renderEvent(event))
    await turn
    this.#sent++
    const request = this.send(endpoint, event, body, delivery.attempts.length + 1)
    sent()
    const result = await request
    const current = await deliveries.recordAttempt(delivery.id, endpoint, result, {
      now: wallClockIso(),
      dueAt,
      schedule: this.options.schedule ?? RETRY_SCHEDULE,
      disableAfter: this.options.disableAfter ?? DISABLE_AFTER,
      claimed: delivery,
    })
    // delivery chaos drew a duplicate for it (docs/api.md, "Delivery chaos"): the same bytes once more, signed
    // afresh; an endpoint deleted or disabled while the attempt was out is sent nothing more (docs/api.md, "Webhooks")
    if (delivery.chaos_duplicate && succeeded(result) && current?.status === 'enabled') {
      const again = await this.send(endpoint, event, body, delivery.attempts.length + 2)
      await deliveries.recordDuplicate(delivery.id, again, wallClockIso())
    }
  }

  /**
   * Another live instance holds this attempt: its record of it will reach
   * this one as a change. Until then the delivery is claimed again every
   * CLAIM_RECHECK_MS, which succeeds once that instance is gone or its lease
   * ran out (docs/postgres.md, "Delivery across instances").
   */
  #contest(entry: Entry): void {
    if (this.#closed || !this.#isCurrent(entry)) return
    const since = this.#contested.get(entry.id)?.since ?? Date.now()
    this.#contested.set(entry.id, {entry, since})
    this.#recheck ??= setTimeout(() => this.#claimAgain(), CLAIM_RECHECK_MS).unref()
  }

  #claimAgain(): void {
    this.#recheck = undefined
    if (this.#closed) return
    if (this.service.deliveries.failure) {
      this.#recheck = setTimeout(() => this.#claimAgain(), CLAIM_RECHECK_MS).unref()
      return
    }
    // they stay parked until a claim settles them: an advance waits for them meanwhile
    for (const {entry} of this.#contested.values()) {
      if (!this.#isCurrent(entry)) this.#contested.delete(entry.id)
      if (!this.#isCurrent(entry) || this.#inFlight.has(entry.id)) continue
      const lane = this.#lane(entry.endpointId)
      lane.ready.push(entry)
      this.#settle(lane)
      this.#offer(lane)
    }
    // a pump, not only a start: while the database was lost, nothing moved what fell due
    this.#pump()
    this.#wake()
  }

  /**
   * Moves the clock to the offset `read` gives, back too: another instance
   * advanced or reset the shared clock. Then runs what is due on it.
   */
  #follow(read: () => number | Promise<number>): Promise<void> {
    const run = this.#following.then(async () => {
      const offset = await read()
      if (this.#closed || offset === this.clock.offset) return
      if (offset < this.clock.offset) this.clock.reset()
      this.clock.moveToOffset(offset)
      // the timer was set for the clock as it was
      if (!this.#driven) this.#disarm()
      this.#pump()
    })
    this.#following = run.catch(() => undefined)
    return run
  }

  /**
   * With other instances on the database, brings the clock to the offset
   * last saved by any of them before it is read (`GET /sim/clock`); alone,
   * this instance's clock is the only one.
   */
  syncClock(): Promise<void> {
    return this.service.sim.shared ? this.#follow(() => this.service.sim.clockOffset()) : Promise.resolve()
  }

  /**
   * One signed POST to an endpoint within the receiver timeout: a queued attempt, or the ping sent
   * outside the queue. During a rotation's overlap it carries a `v1` for each secret.
   */
  send(
    endpoint: Pick<WebhookEndpointRecord, 'url' | 'secret' | 'previous_secret' | 'previous_secret_expires_at'>,
    event: {id: string; type: string},
    body: string,
    attempt: number,
  ): Promise<AttemptResult> {
    const secrets =
      endpoint.previous_secret === undefined ? endpoint.secret : signingSecrets(endpoint, this.clock.now())
    return postDelivery(endpoint.url, body, deliveryHeaders(body, secrets, event, attempt), this.timeoutMs)
  }

  get timeoutMs(): number {
    return this.options.timeoutMs ?? RECEIVER_TIMEOUT_MS
  }

  /** Resolves when no attempt is in flight. */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight.values()].map(({run}) => run))
  }

  /** Resolves when the next attempt ends. */
  #attemptEnds(): Promise<void> {
    return new Promise((resolve) => this.#ended.push(resolve))
  }

  /**
   * Moves the clock forward by `seconds`, stopping at each due time on the
   * way so that every attempt, and every retry it schedules, runs at the
   * time it was due. Resolves, with the number of attempts made, when all
   * of it has run.
   */
  advance(seconds: number): Promise<number> {
    // from the shared clock as last saved: another instance may have moved it (docs/postgres.md)
    return this.#queue(async () => {
      await this.syncClock()
      return this.#advanceNow(seconds)
    })
  }

  /** Puts the clock back on the wall clock; pending deliveries keep their due times (docs/api.md "Webhooks"). */
  reset(): Promise<void> {
    return this.#queue(async () => {
      await this.#saveOffset(0)
      this.clock.reset()
      this.#disarm()
      this.#pump()
    })
  }

  // one clock change at a time: an advance starts from where the one before left the clock
  #queue<T>(change: () => Promise<T>): Promise<T> {
    const run = this.#advancing.then(change)
    this.#advancing = run.catch(() => undefined)
    return run
  }

  /**
   * The clock moves to the next due time as soon as every attempt due so far
   * has started: an attempt out to a slow receiver holds up only its own
   * delivery's retries, not the other endpoints'. It ends when nothing due
   * by the target is left to start or out.
   */
  async #advanceNow(seconds: number): Promise<number> {
    const target = this.clock.now() + seconds * 1000
    const sentBefore = this.#sent + this.#endedElsewhere
    this.#driven = true
    this.#target = target
    this.#disarm()
    try {
      for (;;) {
        if (this.#closed || this.service.deliveries.failure) break
        this.#pump()
        // due work that waits only for a free slot: the next attempt to end frees one
        if (this.#rotation.length > 0) await this.#attemptEnds()
        else {
          const next = this.#nextWaiting()?.due
          if (next !== undefined && next <= target) await this.#moveClock(next)
          // attempts out here, or held by another instance, end before the advance does
          else if (this.#inFlight.size > 0 || this.#contested.size > 0) await this.#attemptEnds()
          else break
        }
      }
      if (!this.#closed && !this.service.deliveries.failure) await this.#moveClock(target)
    } finally {
      this.#driven = false
      this.#target = undefined
      this.#pump()
    }
    return this.#sent + this.#endedElsewhere - sentBefore
  }

  /**
   * Moves the clock to `at`, saving the offset first: after a crash, the
   * retries scheduled on the moved clock are not in its future.
   */
  async #moveClock(at: number): Promise<void> {
    const offset = this.clock.offsetFor(at)
    await this.#saveOffset(offset)
    this.clock.moveToOffset(offset)
  }

  #saveOffset(offset: number): Promise<void> {
    return this.service.sim.saveClockOffset(offset)
  }

  /** What a running advance is at: its target and the attempts it waits for, oldest first. */
  get progress(): {target: number; out: AttemptOut[]} | undefined {
    if (this.#target === undefined) return undefined
    const out = [...this.#inFlight.values()].map(({out}) => out)
    // and those another instance has out (one database): this advance waits for them too
    for (const [deliveryId, {entry, since}] of this.#contested)
      if (!this.#inFlight.has(deliveryId)) out.push({endpointId: entry.endpointId, deliveryId, since})
    return {target: this.#target, out: out.sort((a, b) => a.since - b.since)}
  }

  async close(): Promise<void> {
    this.#closed = true
    this.#unfollow?.()
    clearTimeout(this.#recheck)
    clearTimeout(this.#paced)
    this.#contested.clear()
    this.#wake()
    this.#disarm()
    await this.idle()
  }
}
