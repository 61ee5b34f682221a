/**
 * The attempts made so far, wherever they ran: each one this instance sent,
 * and each one another instance on the database made that this one had
 * queued or waited for. Every attempt is counted once, by whichever part
 * learns of it first; `clock advance` answers the difference across its run
 * (docs/postgres.md, "The scheduler clock across instances").
 *
 * @example
 * const attempts = new AttemptCounter()
 * const before = attempts.total
 * attempts.count()
 * attempts.total - before // 1
 */
export class AttemptCounter {
  #total = 0

  get total(): number {
    return this.#total
  }

  /** `made` more attempts made. */
  count(made = 1): void {
    this.#total += made
  }
}
