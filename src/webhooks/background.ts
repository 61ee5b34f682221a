/** How long after a request the server counts as busy answering requests. */
const BUSY_MS = 10

/**
 * Whether requests keep the server busy: background work (fan-outs, webhook attempts) then steps
 * back to a small share, and takes the whole server again once they stop (docs/storage.md,
 * "Deferred fan-out").
 */
export class Background {
  #lastRequest = Number.NEGATIVE_INFINITY

  /** A request arrived. */
  noteRequest(): void {
    this.#lastRequest = performance.now()
  }

  /** True while requests keep arriving: one came in the last BUSY_MS. */
  get busy(): boolean {
    return performance.now() - this.#lastRequest < BUSY_MS
  }
}
