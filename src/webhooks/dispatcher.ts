import {DISABLE_AFTER, RETRY_SCHEDULE, succeeded, wants} from '../domain/deliveries.js'
import {renderEvent} from '../domain/events.js'
import type {DeliveryRecord} from '../domain/records.js'
import {recordJson} from '../store/json-text.js'
import type {Change} from '../store/store.js'
import {AttemptCounter} from './attempt-counter.js'
import {AttemptFailures} from './attempt-failure.js'
import {ClockDriver} from './clock-driver.js'
import {type Flight, Flights} from './flights.js'
import {CLOCK_SETTING, dueMs, type SchedulerClock, wallClockIso} from './clock.js'
import {ContestedClaims, leaseMs} from './contested-claims.js'
import type {AttemptOut, DispatcherOptions, DispatcherService} from './dispatcher-service.js'
import {type Entry, PER_ENDPOINT, Scheduler} from './scheduler.js'
import {SendOrder, type Turn} from './send-order.js'
import {type Cancelable, RECEIVER_TIMEOUT_MS} from './send.js'
import {type SendingEndpoint, sendAttempt} from './send-attempt.js'

/** The default of `freshMs` (dispatcher-service.ts). */
const FRESH_MS = 50

/** How soon attempts held back while requests keep the server busy are looked at again, in ms. */
const PACED_RETRY_MS = 1

/**
 * Sends due deliveries and records their attempts through the service. The service tells it of every delivery it writes
 * once durable (its own attempts' too), and at start it picks up whatever was pending (or in flight) when the server
 * stopped: delivery is at-least-once. What to start is the scheduler's (`scheduler.ts`), when is the clock driver's
 * (`clock-driver.ts`), and with other instances on the database each attempt is claimed first (`contested-claims.ts`).
 *
 * @example
 * const dispatcher = new Dispatcher(service, new SchedulerClock())
 * await dispatcher.start()
 * const attempts = await dispatcher.advance(60)
 */
export class Dispatcher {
  readonly #scheduler: Scheduler
  readonly #attempts = new AttemptCounter()
  readonly #failures = new AttemptFailures()
  readonly #driver: ClockDriver
  /** Only with other instances on the database. */
  readonly #claims: ContestedClaims | undefined
  readonly #flights = new Flights()
  readonly #order: SendOrder
  /** Woken when an attempt ends or the pace's timer runs (what it waited for may be gone): `advance` waits on it. */
  #ended: (() => void)[] = []
  /** Set while attempts wait for their pace (requests keep the server busy). */
  #paced: NodeJS.Timeout | undefined
  #closed = false
  readonly timeoutMs: number

  constructor(
    readonly service: DispatcherService,
    readonly clock: SchedulerClock,
    readonly options: DispatcherOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? RECEIVER_TIMEOUT_MS
    this.#order = new SendOrder(options.perEndpoint ?? PER_ENDPOINT)
    // a claim on PostgreSQL is a round trip: an endpoint's next attempts make theirs while its places are taken
    const ahead = options.ahead ?? (service.sim.shared ? this.#order.places : 0)
    const scheduler = (this.#scheduler = new Scheduler({...options, ahead}))
    const work = {
      run: () => this.#pump(),
      wake: () => this.#wake(),
      nextDue: () => scheduler.nextDue(),
      holdsNext: () => scheduler.someDueNext((lane) => this.#flights.outIn(lane)),
      waitingForSlot: () => scheduler.waitingForSlot,
      out: () => this.#flights.size > 0 || (this.#claims?.size ?? 0) > 0,
      attemptEnds: () => new Promise<void>((resolve) => this.#ended.push(resolve)),
      stopped: () => this.#closed || this.service.deliveries.failure !== undefined,
    }
    this.#driver = new ClockDriver(clock, service.sim, work, this.#attempts)
    if (service.sim.shared) this.#claims = new ContestedClaims(scheduler, service.deliveries, this.#attempts, work)
  }

  /** Starts delivering: from now on the service tells it of new deliveries, and those pending already go first. */
  async start(): Promise<void> {
    this.#driver.start()
    this.#trackRead(await this.service.deliveries.attach((changes) => this.#onCommit(changes), this.#trackRead))
  }

  /** Tracks the pending deliveries a read found (missed-deliveries.ts): newer than an entry due at another time. */
  #trackRead = (pending: readonly DeliveryRecord[]): void => {
    for (const d of pending) if (this.#scheduler.entry(d.id)?.due !== dueMs(d.next_attempt_at!)) this.#track(d)
    this.#pump()
  }

  /** Entries the queues have touched so far: a test reads it around a commit to pin that the work does not grow. */
  get visits(): number {
    return this.#scheduler.visits
  }

  // on the push path: a commit costs one heap push per new delivery
  #onCommit(changes: readonly Change[]): void {
    if (this.#closed) return
    let added = false
    for (const [collection, id, record] of changes) {
      // a restore sets the clock's offset in the unit that puts its deliveries back: due on the restored clock
      if (collection === 'settings' && id === CLOCK_SETTING && record && this.#driver.jump(record.value)) added = true
      if (collection !== 'deliveries') continue
      this.#claims?.heard(id, record as DeliveryRecord | null)
      this.#flights.heard(id, record as DeliveryRecord | null)
      if (record?.status === 'pending') {
        this.#track(record as DeliveryRecord)
        added = true
      } else this.#scheduler.drop(id)
    }
    if (added) this.#pump()
  }

  #track = (d: DeliveryRecord) => this.#scheduler.track(d.id, d.endpoint_id, dueMs(d.next_attempt_at!), d.account_id)

  /** Starts what is due now and there is room for, then sets the timer for the next due time. */
  #pump(): void {
    if (this.#closed) return
    // a failed journal write records no attempt, so each would go again at once; a database heals (docs/postgres.md)
    if (this.service.deliveries.failure) return this.#claims?.recheckLater()
    this.#scheduler.release(this.clock.now())
    this.#startDue()
    this.#driver.arm()
  }

  /** One attempt per endpoint in turn while there are free slots. */
  #startDue(): void {
    const {background} = this.service
    while (this.#scheduler.canStart) {
      if (!background.mayStart()) {
        this.#paced ??= setTimeout(() => {
          this.#paced = undefined
          this.#pump()
          this.#wake()
        }, PACED_RETRY_MS)
        return
      }
      const entry = this.#scheduler.next()
      if (entry) this.#start(entry)
    }
  }

  #start(entry: Entry): void {
    this.service.background.started()
    const {id} = entry
    const turn = this.#order.next(entry.lane)
    const flight = this.#flights.open(entry)
    flight.run = this.#attempt(entry, turn, flight)
      .catch((error) => {
        this.#failures.failed(id, error as Error, this.service.deliveries.failure)
        // on a database that was lost for a moment, the attempt is claimed (its own lease) and made again
        this.#claims?.contest(entry)
      })
      .finally(() => {
        // one that ended without sending lets the next one go
        turn.done()
        this.#flights.close(id)
        this.#scheduler.finish(id)
        this.#pump()
        this.#wake()
      })
  }

  #wake = (): void => this.#ended.splice(0).forEach((wake) => wake())

  async #attempt(entry: Entry, turn: Turn, flight: Flight): Promise<void> {
    const {deliveries} = this.service
    // a commit the queues have not heard of may have ended it; with other instances, contested-claims.ts settles it
    const lease = leaseMs(this.timeoutMs)
    const attempt = await (this.#claims?.claim(entry, lease) ?? deliveries.claim(entry.id, entry.due, lease))
    // nothing was sent, so an advance counts nothing (docs/api.md, "Webhooks", the scheduler clock)
    if (typeof attempt !== 'object') return
    const {delivery, target} = attempt
    flight.claimed = delivery
    if (!target) return deliveries.cancel(delivery, wallClockIso())
    const claimed = performance.now()
    // the same bytes on every attempt: events never change, and `data` is serialized once for all (store/json-text.ts)
    const body = recordJson(renderEvent(target.event))
    await turn.ready
    // it may have waited long: a stopping server sends no more, and a delivery written since has an attempt of its own
    if (this.#closed || !this.#scheduler.isCurrent(entry)) return
    // after a long wait, its endpoint as it is now: a new URL or secret, or disabled (docs/api.md, "Fair shares")
    const fresh = performance.now() - claimed < (this.options.freshMs ?? FRESH_MS)
    const endpoint = fresh ? target.endpoint : await deliveries.endpoint(delivery)
    if (!wants(endpoint, target.event)) return deliveries.cancel(delivery, wallClockIso())
    if (flight.letGo) return
    this.#attempts.count()
    // one sent late has its retry put off as late (`retryBase`); an advance runs each as of when it was due
    const madeAt = this.#driver.driven ? entry.due : this.clock.now()
    const request = this.send(endpoint, target.event, body, delivery.attempts.length + 1, flight)
    turn.sent()
    const result = await request
    if (flight.letGo) return
    // the answer frees the endpoint's place before the record; a duplicate drawn by chaos keeps it (docs/api.md)
    if (!delivery.chaos_duplicate) {
      turn.done()
      if (this.#scheduler.answered(entry.id)) this.#pump()
    }
    const current = await deliveries.recordAttempt(delivery.id, endpoint, result, {
      now: wallClockIso(),
      dueAt: entry.due,
      madeAt,
      schedule: this.options.schedule ?? RETRY_SCHEDULE,
      disableAfter: this.options.disableAfter ?? DISABLE_AFTER,
      claimed: delivery,
    })
    this.#failures.recorded()
    // a chaos duplicate: the same bytes signed afresh, to an endpoint still enabled (docs/api.md, "Delivery chaos")
    if (delivery.chaos_duplicate && succeeded(result) && current?.status === 'enabled') {
      const sent = delivery.attempts.length + 2
      const again = await this.send(endpoint, target.event, body, sent, flight)
      if (!flight.letGo) await deliveries.recordDuplicate(delivery.id, again, wallClockIso(), sent)
    }
  }

  /** Attempt `n`, one signed POST within the receiver timeout (send-attempt.ts): a queued one, or (unheld) the ping. */
  send(endpoint: SendingEndpoint, event: {id: string; type: string}, body: string, n: number, held?: Cancelable) {
    const post = (by: Cancelable) => sendAttempt(endpoint, event, body, n, this.clock.now(), this.timeoutMs, by)
    return held ? post(held) : this.#flights.ping(post)
  }

  /** Resolves when no attempt is in flight. */
  idle = (): Promise<void> => this.#flights.idle()

  /** Moves the clock forward by `seconds`, running everything due on the way; resolves with the attempts made. */
  advance = (seconds: number): Promise<number> => this.#driver.advance(seconds)

  /** Runs a snapshot's `restore` between clock changes: no advance moves the clock under it (docs/api.md). */
  restore = <T>(restore: () => Promise<T>): Promise<T> => this.#driver.restore(restore)

  /** Puts the clock back on the wall clock; pending deliveries keep their due times (docs/api.md "Webhooks"). */
  reset = (): Promise<void> => this.#driver.reset()

  /** With other instances on the database, brings the clock to the offset last saved by any of them. */
  syncClock = (): Promise<void> => this.#driver.syncClock()

  /** What a running advance is at: its target and the attempts it waits for, here or elsewhere, oldest first. */
  get progress(): {target: number; out: AttemptOut[]} | undefined {
    const target = this.#driver.target
    const out = () => this.#flights.outs().concat(this.#claims?.held() ?? [])
    return target === undefined ? undefined : {target, out: out().sort((a, b) => a.since - b.since)}
  }

  /** Lets the attempts out go unrecorded, made again at the next start (docs/api.md, "Webhooks"). */
  async close(): Promise<void> {
    this.#closed = true
    this.#flights.stopAll()
    this.#driver.close()
    this.#claims?.close()
    clearTimeout(this.#paced)
    this.#wake()
    await this.idle()
  }
}
