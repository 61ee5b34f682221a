import {isoTime, MAX_CLOCK_OFFSET_MS} from '../domain/timestamps.js'

/** The settings record that keeps how far the clock was advanced, across restarts. */
export const CLOCK_SETTING = 'clock_offset_ms'

/**
 * The scheduler's clock: the wall clock, sped up by `timeScale` and pushed
 * forward by `advance`. Only delivery scheduling runs on it; signatures and
 * `created_at` keep the real wall clock.
 */
export class SchedulerClock {
  #origin: number
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

  /**
   * The offset at which the clock reads `at` now (never less than today's, nor past MAX_CLOCK_OFFSET_MS, where
   * it reads as the last time already): what `moveTo(at)` will set.
   */
  offsetFor(at: number): number {
    return Math.max(this.#offset, Math.min(this.#offset + Math.max(at - this.now(), 0), MAX_CLOCK_OFFSET_MS))
  }

  /** Moves forward to `at` (never back). */
  moveTo(at: number): void {
    this.#offset = this.offsetFor(at)
  }

  /** Moves forward to `offset` ms advanced (never back): an offset saved before the move. */
  moveToOffset(offset: number): void {
    this.#offset = Math.max(this.#offset, offset)
  }

  /** Back to the wall clock: no offset, and a sped-up clock starts again from now. */
  reset(): void {
    this.#origin = this.wall()
    this.#offset = 0
  }

  /** Real milliseconds until scheduler time `at`. */
  realDelayUntil(at: number): number {
    return Math.max((at - this.now()) / this.timeScale, 0)
  }
}

/** The wall clock as an ISO timestamp, for `created_at` and `updated_at`. */
export function wallClockIso(): string {
  return isoTime(Date.now())
}

let lastDueIso = ''
let lastDueMs = NaN

/**
 * A delivery's due time in ms. The deliveries of one event share theirs: a push to 100 endpoints parses it once.
 *
 * @example
 * dueMs(delivery.next_attempt_at!) // 1795600000000
 */
export function dueMs(iso: string): number {
  if (iso !== lastDueIso) {
    lastDueIso = iso
    lastDueMs = Date.parse(iso)
  }
  return lastDueMs
}
