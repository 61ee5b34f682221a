import {attemptMadeAt} from '../domain/deliveries.js'
import type {DeliveryRecord} from '../domain/records.js'
import type {AttemptCounter} from './attempt-counter.js'
import type {Attempt, AttemptOut, DeliveryLedger} from './dispatcher-service.js'
import type {Entry, Scheduler} from './scheduler.js'

/**
 * A claim's lease, in ms, outlasts the attempt it covers: a wait for a place
 * at its endpoint (at most two receiver timeouts: the request before it,
 * then that one's chaos duplicate), its own request, then 30 s to record
 * what came of it. It runs on the database's wall clock, which `clock
 * advance` does not move (docs/postgres.md, "Delivery across instances").
 */
export const leaseMs = (timeoutMs: number): number => 3 * timeoutMs + 30_000

/** How often a due delivery that another live instance holds is claimed again, in ms: in case that one died. */
export const CLAIM_RECHECK_MS = 1000

/** What the dispatcher does when a contested attempt may go ahead: run what is due, and wake a waiting advance. */
export interface ClaimsHost {
  run(): void
  wake(): void
}

/**
 * Attempts contested by the other instances on one database (built only
 * then): each is claimed before it starts, and one another live instance
 * holds is parked and claimed again every CLAIM_RECHECK_MS until that
 * one's record of it arrives, that instance is gone or its lease ran out
 * (docs/postgres.md, "Delivery across instances"). It also counts, once,
 * the attempts other instances made of deliveries this one had queued.
 *
 * @example
 * const claims = new ContestedClaims(scheduler, service.deliveries, attempts, {run, wake})
 * const attempt = await claims.claim(entry, 40_000) // undefined: held, made or ended elsewhere
 */
export class ContestedClaims {
  /** Due deliveries whose attempt another live instance holds: claimed again now and then. */
  readonly #contested = new Map<string, {entry: Entry; since: number}>()
  #recheck: NodeJS.Timeout | undefined
  #closed = false

  constructor(
    readonly scheduler: Scheduler,
    readonly ledger: Pick<DeliveryLedger, 'claim' | 'get' | 'failure'>,
    readonly attempts: AttemptCounter,
    readonly host: ClaimsHost,
  ) {}

  /** Attempts another instance holds: an advance waits for them. */
  get size(): number {
    return this.#contested.size
  }

  /**
   * A commit wrote delivery `id` (null: deleted), before the queues learn of
   * it. If another instance held the attempt this one waited for, an advance
   * counts it when this is its record, not when that instance canceled the
   * delivery unsent (its endpoint disabled or deleted).
   */
  heard(id: string, record: DeliveryRecord | null): void {
    const waited = this.#contested.size > 0 ? this.#contested.get(id) : undefined
    if (waited) {
      this.#contested.delete(id)
      if (record && attemptMadeAt(record, waited.entry.due)) this.attempts.count()
      this.host.wake()
    } else this.#madeElsewhere(id, record)
  }

  /**
   * Another instance made the attempt this one had queued and not yet
   * started, its slots being taken: an advance counts it here. One started
   * here is counted by its claim, one waited for by `heard`.
   */
  #madeElsewhere(id: string, record: DeliveryRecord | null): void {
    const entry = this.scheduler.entry(id)
    if (entry === undefined || record === null || this.scheduler.isOut(id)) return
    if (attemptMadeAt(record, entry.due)) this.attempts.count()
  }

  /**
   * The attempt `entry` is queued for, once this instance has claimed it;
   * undefined when another instance holds it (it is parked) or made it, or
   * nothing is left to attempt.
   */
  async claim(entry: Entry, leaseMs: number): Promise<Attempt | undefined> {
    const {id, due} = entry
    // waited for already: its record, once it arrives, is what an advance counts (heard)
    const contested = this.#contested.size > 0 && this.#contested.has(id)
    const claim = await this.ledger.claim(id, due, leaseMs)
    if (claim === 'held') {
      // another instance has it out, and an advance counts it when that one's record arrives; if the delivery was
      // written while this claim was out (the entry is stale now), it counts here when the delivery shows the
      // attempt (it may have been canceled unsent instead), unless this instance waited for it already (heard
      // counted it then)
      if (this.scheduler.isCurrent(entry)) this.contest(entry)
      else if (!contested && (await this.#madeAt(id, due))) this.attempts.count()
      return undefined
    }
    // claimed now, or nothing is left to claim
    if (contested) this.#contested.delete(id)
    // another instance made it before this one could claim it: an advance counts it once, here
    if (claim === 'made') {
      if (!contested) this.attempts.count()
      return undefined
    }
    return claim
  }

  /** Whether the delivery, as stored now, has had its attempt due at `dueAt` made. */
  async #madeAt(id: string, dueAt: number): Promise<boolean> {
    const latest = await this.ledger.get(id)
    return latest !== undefined && attemptMadeAt(latest, dueAt)
  }

  /**
   * Parks an attempt another live instance holds, or one whose attempt here
   * could not be recorded (on a database lost for a moment, it is claimed,
   * with its own lease, and made again): its record of it will reach this
   * one as a change; until then it is claimed again every CLAIM_RECHECK_MS.
   */
  contest(entry: Entry): void {
    if (this.#closed || !this.scheduler.isCurrent(entry)) return
    const since = this.#contested.get(entry.id)?.since ?? Date.now()
    this.#contested.set(entry.id, {entry, since})
    this.recheckLater()
  }

  /** Looks again in CLAIM_RECHECK_MS: a database out of reach comes back (docs/postgres.md). */
  recheckLater(): void {
    this.#recheck ??= setTimeout(() => this.#claimAgain(), CLAIM_RECHECK_MS).unref()
  }

  #claimAgain(): void {
    this.#recheck = undefined
    if (this.#closed) return
    if (this.ledger.failure) return this.recheckLater()
    // they stay parked until a claim settles them: an advance waits for them meanwhile
    for (const {entry} of this.#contested.values()) {
      if (this.scheduler.isCurrent(entry)) this.scheduler.requeue(entry)
      else this.#contested.delete(entry.id)
    }
    // a run, not only a start: while the database was lost, nothing moved what fell due
    this.host.run()
    this.host.wake()
  }

  /** The attempts held elsewhere that are not out here too, for an advance's progress. */
  held(): AttemptOut[] {
    const held: AttemptOut[] = []
    for (const [deliveryId, {entry, since}] of this.#contested)
      if (!this.scheduler.isOut(deliveryId)) held.push({endpointId: entry.endpointId, deliveryId, since})
    return held
  }

  close(): void {
    this.#closed = true
    clearTimeout(this.#recheck)
    this.#contested.clear()
  }
}
