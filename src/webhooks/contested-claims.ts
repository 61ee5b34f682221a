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

/** How often a due delivery held elsewhere is claimed again, in ms: in case its holder died or let its row go. */
export const CLAIM_RECHECK_MS = 1000

/** What the dispatcher does when a contested attempt may go ahead: run what is due, and wake a waiting advance. */
export interface ClaimsHost {
  run(): void
  wake(): void
}

/**
 * Attempts contested by the other instances on one database (built only
 * then): each is claimed before it starts, and one held elsewhere (another
 * live instance's lease, or a transaction's lock on its row) is parked and
 * claimed again every CLAIM_RECHECK_MS until a record of it arrives, or a
 * claim wins it: its holder gone, its lease run out or its row let go
 * (docs/postgres.md, "Delivery across instances"). It also counts, once,
 * the attempts other instances made of deliveries this one had queued,
 * claimed or waited for: each record heard counts those made since the
 * attempt this instance knew to be due, and the queues then learn the next.
 *
 * @example
 * const claims = new ContestedClaims(scheduler, service.deliveries, attempts, {run, wake})
 * const attempt = await claims.claim(entry, 40_000) // undefined: held, made or ended elsewhere
 */
export class ContestedClaims {
  /** Due deliveries whose attempt is held elsewhere: claimed again now and then. */
  readonly #contested = new Map<string, {entry: Entry; since: number}>()
  /** Deliveries whose claim is out: a record heard meanwhile is another instance's (or none's) to count. */
  readonly #claiming = new Set<string>()
  #recheck: NodeJS.Timeout | undefined
  #closed = false

  constructor(
    readonly scheduler: Scheduler,
    readonly ledger: Pick<DeliveryLedger, 'claim' | 'failure'>,
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
   * delivery unsent (its endpoint disabled or deleted); and every attempt
   * the record shows since, made before this instance heard of the first.
   */
  heard(id: string, record: DeliveryRecord | null): void {
    const waited = this.#contested.size > 0 ? this.#contested.get(id) : undefined
    if (waited) {
      this.#contested.delete(id)
      if (record) this.attempts.countMadeElsewhere(record, waited.entry.due)
      this.host.wake()
    } else this.#madeElsewhere(id, record)
  }

  /**
   * Another instance made the attempts the record shows since the one this
   * instance had queued, or was claiming: an advance counts them here. One
   * sent here is counted as it is sent, so while its attempt is out after
   * its claim, the record is this instance's own.
   */
  #madeElsewhere(id: string, record: DeliveryRecord | null): void {
    const entry = this.scheduler.entry(id)
    if (entry === undefined || record === null) return
    if (this.scheduler.isOut(id) && !this.#claiming.has(id)) return
    this.attempts.countMadeElsewhere(record, entry.due)
  }

  /**
   * The attempt `entry` is queued for, once this instance has claimed it;
   * undefined when another instance holds it (it is parked) or made it, or
   * nothing is left to attempt.
   */
  async claim(entry: Entry, leaseMs: number): Promise<Attempt | undefined> {
    const {id, due} = entry
    // a record of the delivery heard while the claim is out is counted then (heard): one that shows this attempt
    // made elsewhere too, as the latest that the ledger passes on when it finds the attempt gone
    this.#claiming.add(id)
    const claim = await this.ledger.claim(id, due, leaseMs).finally(() => this.#claiming.delete(id))
    // held elsewhere: an advance counts it when its record arrives, unless the delivery was
    // written while this claim was out (the entry is stale now: that record was counted as it was heard)
    if (claim === 'held') {
      if (this.scheduler.isCurrent(entry)) this.contest(entry)
      return undefined
    }
    // claimed now, or nothing is left to claim here
    this.#contested.delete(id)
    return claim
  }

  /**
   * Parks an attempt held elsewhere, or one whose attempt here could not be
   * recorded (on a database lost for a moment, it is claimed, with its own
   * lease, and made again): a record of it will reach this one as a change;
   * until then it is claimed again every CLAIM_RECHECK_MS.
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
