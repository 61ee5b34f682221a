import {attemptsMadeSince} from '../domain/deliveries.js'
import type {DeliveryRecord} from '../domain/records.js'

/**
 * The attempts made so far, wherever they ran: each one this instance sent,
 * and each one another instance on the database made that this one had
 * queued or waited for. Every attempt is counted once, by whichever part
 * learns of it first; `clock advance` answers those counted `during` its
 * run, and of another instance's only those sent since it began
 * (docs/postgres.md, "The scheduler clock across instances").
 *
 * @example
 * const attempts = new AttemptCounter()
 * const made = await attempts.during(async () => attempts.count()) // 1
 */
export class AttemptCounter {
  #total = 0
  /** When the run `during` counts for began (wall ms). */
  #from: number | undefined

  get total(): number {
    return this.#total
  }

  /** `made` more attempts made. */
  count(made = 1): void {
    this.#total += made
  }

  /**
   * The attempts `record` shows made by another instance for the times from `dueAt` (scheduler ms) on: while a
   * run is counted, those it sent before the run began are not the run's.
   */
  countMadeElsewhere(record: DeliveryRecord, dueAt: number): void {
    this.count(attemptsMadeSince(record, dueAt, this.#from))
  }

  /** Runs `work`, and resolves with the attempts counted while it ran. One run at a time. */
  async during(work: () => Promise<void>): Promise<number> {
    const before = this.#total
    this.#from = Date.now()
    try {
      await work()
    } finally {
      this.#from = undefined
    }
    return this.#total - before
  }
}
