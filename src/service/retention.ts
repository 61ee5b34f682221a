import type {DeliveryRecord, IdempotencyRecord} from '../domain/records.js'
import {DEFAULT_RETENTION, isExpiredKey, isPastAge, mayDelete, type RetentionPolicy} from '../domain/retention.js'
import type {ServiceContext} from './context.js'
import {fanningOut, type Outbox} from './outbox.js'
import type {UnitOfWork} from './storage.js'
import {Turns} from '../shared/turns.js'

/**
 * Events whose deliveries and fan-out marks a pass reads at once: few enough that an account whose events
 * each have many deliveries (one per endpoint) reads little more than its budget lets it delete.
 */
const SLICE = 32

/** Where a pass over an account's events stands: how far over the count kept, and what it may still delete. */
interface Pass {
  overflow: number
  budget: number
  nowMs: number
  /** The events it found may go, with their deliveries as it read them: deleted at its end (`deleteGoing`). */
  going: {event: string; deliveries: DeliveryRecord[]}[]
}

/** What one pass deleted. */
export interface Pruned {
  events: number
  deliveries: number
  idempotency_keys: number
  /** It stopped at its budget (or its look-ahead) with an account's records maybe still past retention. */
  more: boolean
}

/**
 * Forgets what is past retention, oldest first and in small units of work:
 * events (with their finished deliveries) beyond the age or the count kept,
 * and idempotency keys past their time (docs/api.md, "Retention").
 */
export class Retention {
  constructor(
    readonly context: ServiceContext,
    readonly outbox: Outbox,
    readonly policy: RetentionPolicy = DEFAULT_RETENTION,
  ) {}

  /**
   * One unit of work per account with something to forget, each deleting at
   * most the policy's `pruneBatch` records; resolves with what went. Call again until it
   * deletes nothing to catch up.
   *
   * @example
   * while (total(await service.retention.prune()) > 0);
   */
  async prune(): Promise<Pruned> {
    const pruned: Pruned = {events: 0, deliveries: 0, idempotency_keys: 0, more: false}
    for (const account of await this.context.storage.all('accounts')) {
      // and the deliveries only of events no fan-out is left for (a marked one is kept): it need not wait. It
      // names its account: what it counted and chose is gone to it while a restore puts the account back
      await this.outbox.unit({reads: ['events', 'fan_outs', 'idempotency_keys'], account: account.id}, async (tx) => {
        const events = await this.#pruneEvents(tx, account.id, pruned)
        const keys = await this.#pruneKeys(tx, account.id, pruned)
        pruned.more ||= events || keys
      })
    }
    return pruned
  }

  /** Whether it stopped before it could tell that none of the account's events is past retention. */
  async #pruneEvents(tx: UnitOfWork, accountId: string, pruned: Pruned): Promise<boolean> {
    const overflow = await tx.countPast('events', accountId, this.policy.maxEvents)
    const pass: Pass = {overflow, budget: this.policy.pruneBatch, nowMs: Date.parse(this.context.now()), going: []}
    const more = await this.#walkEvents(tx, accountId, pass)
    await deleteGoing(tx, pass.going, pruned)
    return more
  }

  /** Finds the events that may go, oldest first (`pass.going`); whether it stopped before the last. */
  async #walkEvents(tx: UnitOfWork, accountId: string, pass: Pass): Promise<boolean> {
    const {pruneBatch} = this.policy
    const {overflow} = pass
    let startingAfter: string | undefined
    let read = 0
    // the first page holds what the count lets go and one more (is it past the age?); each page after it twice
    // as many, up to a batch. Under steady pushes at the bound a pass deletes a few events: it reads a few, not
    // a batch (docs/benchmarks.md, "Pruning"). Events kept for a pending delivery are passed over, and the
    // look-ahead past them is bounded.
    let limit = Math.min(pruneBatch, Math.max(overflow, 0) + 1)
    while (read < pruneBatch * 2) {
      // ids only: past the count an event's age does not matter, so it is not read (an event a start left unparsed stays so)
      const page = await tx.pageIds('events', accountId, {limit, oldestFirst: true, startingAfter})
      // none: the event paged from was deleted by another instance's pass and its kept place trimmed since
      // (docs/postgres.md); this pass ends with what it did, and the next starts from the oldest again
      if (!page) return true
      for (let at = 0; at < page.records.length; at += SLICE) {
        const ended = await this.#walkSlice(tx, accountId, page.records.slice(at, at + SLICE), pass)
        if (ended !== undefined) return ended
      }
      // the unit's deletes apply when it ends: the last event read is still there to page from
      if (!page.hasMore || pass.budget <= 0) return page.hasMore
      read += page.records.length
      startingAfter = page.records.at(-1)!
      limit = Math.min(pruneBatch, limit * 2)
    }
    return true
  }

  /**
   * Adds those of `slice`, oldest first, that may go to `pass.going`; undefined while the pass goes on, else
   * whether it ended at its budget (true) or at an event not past its age (false).
   */
  async #walkSlice(tx: UnitOfWork, accountId: string, slice: string[], pass: Pass): Promise<boolean | undefined> {
    // the slice's deliveries and fan-out marks in one read each, once an event may go: on PostgreSQL a read per
    // event was two round trips, which at the bound cost more than the pushes (docs/postgres.md, "Retention at
    // the bound"). The deliveries are read outside the unit, locking none: `deleteGoing` locks those that go
    let marks: Promise<[DeliveryRecord[], Set<string>]> | undefined
    for (const id of slice) {
      if (pass.budget <= 0) return true
      if (pass.overflow <= 0) {
        // gone: another instance's pass deleted it since the page was read (PostgreSQL)
        const event = await tx.get('events', id)
        if (!event) continue
        if (!isPastAge(event, pass.nowMs, this.policy)) return false
      }
      const {storage} = this.context
      marks ??= Promise.all([storage.list('deliveries', accountId, {event_id: slice}), fanningOut(tx, slice)])
      const [listed, fanning] = await marks
      const deliveries = listed.filter((delivery) => delivery.event_id === id)
      if (!mayDelete(deliveries, fanning.has(id))) continue
      pass.going.push({event: id, deliveries})
      pass.overflow--
      pass.budget -= 1 + deliveries.length
    }
    return undefined
  }

  /** Whether a whole batch of keys went, so that more may be past their time. */
  async #pruneKeys(tx: UnitOfWork, accountId: string, pruned: Pruned): Promise<boolean> {
    const clockMs = this.context.clock.now()
    const wallMs = Date.parse(this.context.now())
    const expired = (key: IdempotencyRecord | undefined) => key && isExpiredKey(key, clockMs, wallMs, this.policy)
    const page = await tx.page('idempotency_keys', accountId, {limit: this.policy.pruneBatch, oldestFirst: true})
    const past = page!.records.filter(expired)
    // read again, locked: a payment with an expired key stores it afresh, and on PostgreSQL one may have since the page
    const locked = await tx.getMany(
      'idempotency_keys',
      past.map(({id}) => id),
    )
    for (const key of locked) {
      if (!expired(key)) continue
      tx.delete('idempotency_keys', key!.id)
      pruned.idempotency_keys++
    }
    return past.length === page!.records.length && page!.hasMore
  }
}

/** How many records a pass deleted. */
export const total = (pruned: Pruned): number => pruned.events + pruned.deliveries + pruned.idempotency_keys

/**
 * Deletes the events a pass found may go, with their deliveries, once those are locked in one read, in the
 * order of their ids as every unit locks deliveries: a pass that locked them slice by slice, in the order of
 * their events, deadlocked again and again with the units recording attempts (docs/postgres.md, "Retention
 * at the bound"). An event one of whose deliveries is gone or pending again since it was read (a retry) stays.
 */
async function deleteGoing(tx: UnitOfWork, going: Pass['going'], pruned: Pruned): Promise<void> {
  const ids = going.flatMap(({deliveries}) => deliveries.map((delivery) => delivery.id))
  const read = await tx.getMany('deliveries', ids)
  const locked = new Map(ids.map((id, i) => [id, read[i]]))
  for (const {event, deliveries} of going) {
    const now = deliveries.map((delivery) => locked.get(delivery.id))
    if (now.some((delivery) => delivery === undefined) || !mayDelete(now as DeliveryRecord[], false)) continue
    tx.delete('events', event)
    for (const delivery of deliveries) tx.delete('deliveries', delivery.id)
    pruned.events++
    pruned.deliveries += deliveries.length
  }
}

/**
 * Runs `retention` in the background: every `intervalMs`, passes back to
 * back (yielding to requests between them) while one deletes and stops at
 * its budget. One that did not left nothing past retention as it counted, or
 * nothing it may delete yet (events kept for pending deliveries): under steady
 * pushes at the bound the next pass waits for the next tick, as each counts
 * the account's events, which on PostgreSQL reads them all (docs/postgres.md,
 * "Retention at the bound").
 *
 * @example
 * const pruner = new Pruner(service.retention)
 * pruner.start()
 * await pruner.catchUp() // everything past retention is gone now
 */
export class Pruner {
  #timer: NodeJS.Timeout | undefined
  readonly #passes = new Turns()

  constructor(
    readonly retention: Retention,
    readonly intervalMs = 1000,
  ) {}

  start(): void {
    this.#timer = setInterval(() => void this.catchUp(), this.intervalMs).unref()
  }

  /** Resolves once a pass has left nothing past retention (or the storage has failed: nothing can be deleted then). */
  catchUp(): Promise<void> {
    return this.#passes.run(async () => {
      while (!this.retention.context.storage.failure) {
        try {
          const pruned = await this.retention.prune()
          // none deleted: what is left is kept, for deliveries still pending, until a later tick
          if (!pruned.more || total(pruned) === 0) return
        } catch (error) {
          if (!this.retention.context.storage.failure) console.error('[tablepay] retention', error)
          return
        }
        await new Promise((resolve) => setImmediate(resolve))
      }
    })
  }

  /** Stops the timer and waits for a pass under way. */
  close(): Promise<void> {
    clearInterval(this.#timer)
    return this.#passes.ended()
  }
}
