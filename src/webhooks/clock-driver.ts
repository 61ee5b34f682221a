import {setTimeout as sleep} from 'node:timers/promises'
import type {AttemptCounter} from './attempt-counter.js'
import type {SchedulerClock} from './clock.js'
import {Turns} from '../shared/turns.js'

/** An advance the server's stop cut short: the clock is short of its target (docs/api.md, the scheduler clock). */
export class AdvanceCutShort extends Error {
  constructor() {
    super('the server stopped before the clock reached the end of the advance')
  }
}

/** Where the clock's offset is saved, and whether other instances share it (`service.sim`). */
export interface ClockStore {
  saveClockOffset(offset: number): Promise<void>
  /** Resolves once the deliveries of every change answered so far are written (docs/storage.md, "Deferred fan-out"). */
  fannedOut(): Promise<void>
  /** Before the clock is put back (scheduler ms `clockNow`): what had expired on it stays expired. */
  retireExpired(clockNow: number): Promise<void>
  /** Other instances may share the clock (one database): they save it, and this one follows. */
  readonly shared: boolean
  clockOffset(): Promise<number>
  /**
   * Calls `listener` with each offset another instance saves, and `missed` each time one may have gone unheard
   * (this instance's listening connection opened again).
   */
  followClock(listener: (offset: number) => void, missed: () => void): () => void
  /** Runs `change` while no other instance changes the clock: wholly before it or after it; `shared`, a restore's. */
  clockTurn<T>(change: () => Promise<T>, shared?: boolean): Promise<T>
}

/** What the clock drives: the dispatcher's queues and the attempts out. */
export interface DrivenWork {
  /** Starts what is due on the clock now, then asks for the timer (`arm`). */
  run(): void
  /** The earliest due time not yet reached (scheduler ms). */
  nextDue(): number | undefined
  /** An attempt of this instance is out to the endpoint of a delivery due next (all due at that time): its failure may disable it. */
  holdsNext(): boolean
  /** Due work waits only for a free slot: the next attempt to end frees one. */
  waitingForSlot(): boolean
  /** Attempts are out, here or held by another instance. */
  out(): boolean
  /** Resolves when the next attempt ends. */
  attemptEnds(): Promise<void>
  /** Closed, or the storage failed: nothing more runs. */
  stopped(): boolean
}

/**
 * Runs the dispatcher's work on the scheduler clock: one timer, set for the
 * earliest due time; `clock advance`, which moves the clock from one due
 * time to the next and runs what falls due on each; `clock reset`; and, with
 * other instances on the database, the clock they save, which this one
 * follows (docs/postgres.md, "The scheduler clock across instances").
 *
 * @example
 * const driver = new ClockDriver(clock, service.sim, work, attempts)
 * driver.start()
 * const made = await driver.advance(3600)
 */
export class ClockDriver {
  #timer: NodeJS.Timeout | undefined
  /** Scheduler time the timer fires at (Infinity: none set). */
  #timerAt = Infinity
  /** Advances, resets and restores, one at a time: an advance starts from where the one before left the clock. */
  readonly #changes = new Turns()
  /** True while `advance` drives the clock, so no real-time timer moves it too. */
  #driven = false
  /** Where the running `advance` goes (scheduler ms), for its progress. */
  #target: number | undefined
  /** Clock offsets saved by other instances, applied one after another in the order they come. */
  readonly #following = new Turns()
  #unfollow: (() => void) | undefined
  #closed = false

  constructor(
    readonly clock: SchedulerClock,
    readonly store: ClockStore,
    readonly work: DrivenWork,
    readonly attempts: AttemptCounter,
  ) {}

  /** Follows the offsets other instances save. */
  start(): void {
    this.#unfollow = this.store.followClock(
      (offset) => void this.#follow(() => offset),
      // read in turn with the offsets heard: a read that fails (the database gone again) waits for the next time
      () => void this.syncClock().catch(() => {}),
    )
  }

  /** Whether an advance drives the clock: it runs each attempt as of the time it was due. */
  get driven(): boolean {
    return this.#driven
  }

  /** Where the running advance goes (scheduler ms); undefined when none runs. */
  get target(): number | undefined {
    return this.#target
  }

  /**
   * Sets the timer for the earliest due time, unless one set already fires by
   * then. While `advance` drives the clock it sets none: advance decides when
   * the clock moves.
   */
  arm(): void {
    if (this.#driven) return
    const next = this.work.nextDue() ?? Infinity
    if (this.#timer !== undefined && this.#timerAt <= next) return
    this.#disarm()
    if (next === Infinity) return
    this.#timerAt = next
    const fire = () => {
      this.#timer = undefined
      this.#timerAt = Infinity
      this.work.run()
    }
    this.#timer = setTimeout(fire, this.#realDelayUntil(next)).unref()
  }

  /** Real ms until the clock reaches `at`, within what a timer takes (Node fires a longer one at once). */
  #realDelayUntil(at: number): number {
    return Math.min(this.clock.realDelayUntil(at), 2 ** 31 - 1)
  }

  #disarm(): void {
    clearTimeout(this.#timer)
    this.#timer = undefined
    this.#timerAt = Infinity
  }

  /**
   * Moves the clock to the offset `read` gives, back too: another instance
   * advanced or reset the shared clock. Then runs what is due on it.
   */
  #follow(read: () => number | Promise<number>): Promise<void> {
    return this.#following.run(async () => {
      const offset = await read()
      if (this.#closed || offset === this.clock.offset) return
      if (offset < this.clock.offset) this.clock.reset()
      this.clock.moveToOffset(offset)
      // the timer was set for the clock as it was
      if (!this.#driven) this.#disarm()
      this.work.run()
    })
  }

  /**
   * With other instances on the database, brings the clock to the offset
   * last saved by any of them before it is read (`GET /sim/clock`); alone,
   * this instance's clock is the only one.
   */
  syncClock(): Promise<void> {
    return this.store.shared ? this.#follow(() => this.store.clockOffset()) : Promise.resolve()
  }

  /**
   * Moves the clock forward by `seconds`, stopping at each due time on the
   * way so that every attempt, and every retry it schedules, runs at the
   * time it was due. Resolves, with the number of attempts made, when all
   * of it has run.
   */
  advance(seconds: number): Promise<number> {
    // from the shared clock as last saved, and in turn with the other instances' advances (docs/postgres.md)
    return this.#changes.run(() =>
      this.store.clockTurn(async () => {
        await this.syncClock()
        return this.#advanceNow(seconds)
      }),
    )
  }

  /** Puts the clock back on the wall clock; pending deliveries keep their due times (docs/api.md "Webhooks"). */
  reset(): Promise<void> {
    return this.#changes.run(() =>
      this.store.clockTurn(async () => {
        await this.syncClock()
        await this.store.retireExpired(this.clock.now())
        await this.store.saveClockOffset(0)
        this.clock.reset()
        this.#disarm()
        this.work.run()
      }),
    )
  }

  /**
   * Puts the clock at `offset` at once, back too: the offset a restore wrote (docs/snapshots.md).
   * True when it moved; the caller runs what is due then. An advance moves the clock itself, saving each
   * offset before it moves there: meanwhile this does nothing (a restore waits for the advance, `alone`).
   */
  jump(offset: number): boolean {
    if (this.#driven || offset === this.clock.offset) return false
    if (offset < this.clock.offset) this.clock.reset()
    this.clock.moveToOffset(offset)
    // the timer was set for the clock as it was
    this.#disarm()
    return true
  }

  /**
   * Runs a snapshot's `restore`, which may put the clock back, once the advances and resets asked for before it
   * have ended, through any instance (docs/postgres.md), what had expired on the shared clock retired first;
   * none starts until it ends. Restores through other instances run meanwhile: they share the clock's turn.
   */
  restore<T>(restore: () => Promise<T>): Promise<T> {
    return this.#changes.run(() =>
      this.store.clockTurn(async () => {
        await this.syncClock()
        await this.store.retireExpired(this.clock.now())
        return restore()
      }, true),
    )
  }

  /**
   * The clock moves to the next due time as soon as every attempt due so far
   * has started, unless an attempt is out to that delivery's endpoint: its
   * failure may yet disable the endpoint (`--disable-after`), so the clock
   * runs on in real time until the attempt ends or the due time comes, as it
   * would without the advance. A slow receiver holds up its own endpoint's
   * attempts, not the other endpoints'. It ends when nothing due by the
   * target is left to start or out.
   */
  #advanceNow(seconds: number): Promise<number> {
    const {work} = this
    const target = this.clock.now() + seconds * 1000
    this.#driven = true
    this.#target = target
    this.#disarm()
    return this.attempts.during(async () => {
      try {
        // the deliveries of the changes answered before it are written first: their attempts are on the way
        await this.store.fannedOut()
        for (;;) {
          if (work.stopped()) break
          work.run()
          if (work.waitingForSlot()) await work.attemptEnds()
          else {
            const next = work.nextDue()
            if (next !== undefined && next <= target) {
              if (work.holdsNext()) await this.#untilEndOr(next)
              else await this.#moveClock(next)
            }
            // attempts out here, or held by another instance, end before the advance does
            else if (work.out()) await work.attemptEnds()
            else break
          }
        }
        if (!work.stopped()) await this.#moveClock(target)
        // an answer would say the clock reached a target it did not
        else if (this.#closed) throw new AdvanceCutShort()
      } finally {
        this.#driven = false
        this.#target = undefined
        work.run()
      }
    })
  }

  /** Resolves when an attempt ends, or when the clock reaches `at` in real time, whichever comes first. */
  async #untilEndOr(at: number): Promise<void> {
    const reached = new AbortController()
    await Promise.race([
      this.work.attemptEnds(),
      sleep(this.#realDelayUntil(at), undefined, {signal: reached.signal, ref: false}).catch(() => undefined),
    ])
    reached.abort()
  }

  /**
   * Moves the clock to `at`, saving the offset first: after a crash, the
   * retries scheduled on the moved clock are not in its future.
   */
  async #moveClock(at: number): Promise<void> {
    const offset = this.clock.offsetFor(at)
    await this.store.saveClockOffset(offset)
    this.clock.moveToOffset(offset)
  }

  /** Stops following other instances and drops the timer. */
  close(): void {
    this.#closed = true
    this.#unfollow?.()
    this.#disarm()
  }
}
