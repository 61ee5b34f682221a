/**
 * The scheduler's clock: the wall clock, sped up by `timeScale` and pushed
 * forward by `advance`. Only delivery scheduling runs on it; signatures and
 * `created_at` keep the real wall clock.
 */
export class SchedulerClock {
  readonly #origin: number
  #offset: number

  constructor(
    readonly timeScale = 1,
    /** Milliseconds already advanced (restored from the data dir). */
    offset = 0,
    readonly wall: () => number = Date.now,
  ) {
    this.#origin = wall()
    this.#offset = offset
  }

  /** Scheduler time in epoch milliseconds. */
  now(): number {
    return this.#origin + (this.wall() - this.#origin) * this.timeScale + this.#offset
  }

  /** How far `advance` has moved the clock, in milliseconds. */
  get offset(): number {
    return this.#offset
  }

  /** Moves forward to `at` (never back). */
  moveTo(at: number): void {
    this.#offset += Math.max(at - this.now(), 0)
  }

  /** Real milliseconds until scheduler time `at`. */
  realDelayUntil(at: number): number {
    return Math.max((at - this.now()) / this.timeScale, 0)
  }
}
