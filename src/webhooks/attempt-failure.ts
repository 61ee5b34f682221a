/**
 * The server's lines for attempts that failed on our side. A bug keeps its
 * stack, each time, for a bug report. A storage out of reach (a failed data
 * dir, reported once already; a database, which comes back) gets one line
 * for the first attempt it kept from being recorded, saying what becomes of
 * the delivery; the others are counted, and the count is printed once an
 * attempt is recorded again: an outage under load would print a line per
 * delivery (docs/api.md, "Durability").
 *
 * @example
 * const failures = new AttemptFailures()
 * failures.failed(delivery.id, error, service.deliveries.failure)
 * failures.recorded() // after the next attempt recorded
 */
export class AttemptFailures {
  /** Whether the first line of an outage was printed, and how many attempts it has kept unrecorded since. */
  #outage: {more: number} | undefined

  // console.error looked up at each line, so that what replaced it since (a test's spy) prints it
  constructor(readonly print = (line: string): void => console.error(line)) {}

  failed(id: string, error: Error, storageFailure: Error | undefined): void {
    if (!storageFailure && error.name !== 'DatabaseUnavailable')
      return this.print(`[tablepay] delivery ${id}: ${error.stack ?? error}`)
    if (this.#outage) {
      this.#outage.more++
      return
    }
    this.#outage = {more: 0}
    this.print(
      `[tablepay] delivery ${id}: its attempt could not be recorded (${error.message}). ` +
        'It stays pending and is attempted again once the storage works: at once when a database is back, after a restart for a data dir. ' +
        'Others that fail so are counted once an attempt is recorded again.',
    )
  }

  /** An attempt was recorded: the storage works again. */
  recorded(): void {
    const outage = this.#outage
    if (!outage) return
    this.#outage = undefined
    if (outage.more > 0)
      this.print(
        `[tablepay] ${outage.more} more attempt${outage.more === 1 ? '' : 's'} could not be recorded while the storage was out of reach: ` +
          'each stays pending, and is attempted again.',
      )
  }
}
