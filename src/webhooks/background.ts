/** How long after a request the server counts as busy answering requests. */
const BUSY_MS = 10
/** Attempts that may start per ms while busy (2,000 a second), and how many may start at once after a pause. */
const BUSY_STARTS_PER_MS = 2
const BUSY_BURST = 8

/**
 * Whether requests keep the server busy. Background work (fan-outs, webhook attempts) then steps
 * back to a small share of the one thread, and takes all of it again once they stop
 * (docs/storage.md, "Deferred fan-out").
 */
export class Background {
  #lastRequest = Number.NEGATIVE_INFINITY
  #starts = BUSY_BURST
  #refilled = 0

  constructor(readonly now: () => number = () => performance.now()) {}

  /** A request arrived. */
  noteRequest(): void {
    this.#lastRequest = this.now()
  }

  /** True while requests keep arriving: one came in the last BUSY_MS. */
  get busy(): boolean {
    return this.now() - this.#lastRequest < BUSY_MS
  }

  /**
   * Whether an attempt may start now: always when the server is not busy; while it is, about
   * BUSY_STARTS_PER_MS a ms. A hung attempt costs nothing while it waits, so the pace counts starts,
   * not attempts in flight: an endpoint that never answers does not hold the others back.
   */
  mayStart(): boolean {
    if (!this.busy) return true
    const now = this.now()
    this.#starts = Math.min(BUSY_BURST, this.#starts + (now - this.#refilled) * BUSY_STARTS_PER_MS)
    this.#refilled = now
    return this.#starts >= 1
  }

  /** An attempt started. */
  started(): void {
    if (this.busy) this.#starts--
  }
}
