import type {CheckRecord, WebhookEndpointRecord} from '../domain/records.js'
import type {Change} from '../service/storage.js'

/** Checks kept at most: the one kept longest goes first. */
const KEPT = 10_000

/** How a check is looked up: a key of its own, and what a check found that way must match. */
export interface Lookup {
  key: string
  matches(check: CheckRecord): boolean
}

export const byId = (id: string): Lookup => ({key: `i${id}`, matches: (check) => check.id === id})

export const byExternalId = (accountId: string, externalId: string): Lookup => ({
  key: `e${accountId}\u0000${externalId}`,
  matches: (check) => check.account_id === accountId && check.external_id === externalId,
})

export const byGuestToken = (token: string): Lookup => ({
  key: `g${token}`,
  matches: (check) => check.guest_token === token,
})

/**
 * Checks read (a GET, the guest page, a push) or written, kept while this
 * instance is surely alone on its database: then only its own units change
 * them, and each unit drops the checks it wrote as it commits (`forget`),
 * then keeps the versions it committed (`remember`), so a replay or a GET
 * right after a change asks nothing.
 * Kept in one stretch of time alone, a check is not given out in another
 * (src/postgres/presence.ts): another instance's hello, a change heard from
 * one, a lost listening connection or a failed database ends the stretch
 * (docs/postgres.md, "Reads while alone"). Records are never changed in
 * place, as in the memory store, so the kept one is given out as it is.
 * Accounts read to have no webhook endpoints are kept the same way
 * (`bare`): a push to one asks for no endpoints, which it would lock.
 *
 * @example
 * const cache = new CheckCache(() => instance.aloneStretch)
 * const check = await cache.read(byExternalId('acct_demo', 'A1'), () => reader.checkByExternalId('acct_demo', 'A1'))
 */
export class CheckCache {
  /** The kept checks, by id, oldest first. */
  readonly #checks = new Map<string, CheckRecord>()
  /** The id of the check each lookup found, by the lookup's key. */
  readonly #ids = new Map<string, string>()
  /** Each kept check's JSON text (`textOf`). */
  readonly #texts = new WeakMap<CheckRecord, string>()
  /** Moves on at each drop: a read that began before one keeps nothing. */
  #dropped = 0
  /** Accounts read to have no webhook endpoints (`keepBare`). */
  readonly #bare = new Set<string>()
  /** Moves on at each endpoint written or deleted: a read of endpoints that began before one keeps nothing. */
  #endpointsWritten = 0
  #stretch: number | undefined

  /** `stretch` names the stretch of time this instance has surely been alone in; undefined when it is not. */
  constructor(private readonly stretch: () => number | undefined) {}

  /** The check kept for `lookup`, if any and this instance is surely alone. */
  kept(lookup: Lookup): CheckRecord | undefined {
    if (this.#alone() === undefined) return undefined
    const id = this.#ids.get(lookup.key)
    const kept = id === undefined ? undefined : this.#checks.get(id)
    return kept && lookup.matches(kept) ? kept : undefined
  }

  /** The check kept for `lookup`, else what `read` finds (`keep`). */
  async read(lookup: Lookup, read: () => Promise<CheckRecord | undefined>): Promise<CheckRecord | undefined> {
    return this.kept(lookup) ?? this.keep(lookup, read)
  }

  /** What `read` finds, kept when this instance was alone throughout and no check was dropped meanwhile. */
  async keep(lookup: Lookup, read: () => Promise<CheckRecord | undefined>): Promise<CheckRecord | undefined> {
    const stretch = this.#alone()
    const dropped = this.#dropped
    const found = await read()
    if (found && stretch !== undefined && stretch === this.#alone() && dropped === this.#dropped)
      this.#put(found, [lookup.key])
    return found
  }

  /** The stretch of time alone this instance is in now, for `remember`: undefined when it is not alone. */
  mark(): number | undefined {
    return this.#alone()
  }

  /**
   * Keeps the checks a unit wrote, once it committed, when this instance has been alone since `mark` (taken
   * as the unit began): nobody else wrote them meanwhile, so what the unit wrote is what the database holds.
   * `changes` are those not overtaken by a later commit (src/postgres/commit-order.ts); the unit's
   * `forget` came first.
   */
  remember(changes: readonly Change[], mark: number | undefined, texts?: {of(record: unknown): string}): void {
    if (mark === undefined || mark !== this.#alone()) return
    // what the database holds of each check is the unit's last change of it: one put, then deleted, is gone
    const last = new Map<string, Change>()
    for (const change of changes) if (change[0] === 'checks') last.set(change[1], change)
    for (const [, , record] of last.values()) {
      if (record === null) continue
      const check = record as CheckRecord
      if (texts) this.#texts.set(check, texts.of(check))
      this.#put(
        check,
        [byId(check.id), byExternalId(check.account_id, check.external_id), byGuestToken(check.guest_token)].map(
          (l) => l.key,
        ),
      )
    }
  }

  /** Whether the account is kept as having no webhook endpoints, and this instance is surely alone. */
  bare(accountId: string): boolean {
    return this.#alone() !== undefined && this.#bare.has(accountId)
  }

  /** What `keepBare` needs, taken before the account's endpoints are read. */
  endpointsMark(): [stretch: number | undefined, written: number] {
    return [this.#alone(), this.#endpointsWritten]
  }

  /**
   * Keeps the account as having no webhook endpoints when a read that began at `mark` found none, this
   * instance was alone throughout and no endpoint was written meanwhile.
   */
  keepBare(accountId: string, [stretch, written]: [number | undefined, number]): void {
    if (stretch !== undefined && stretch === this.#alone() && written === this.#endpointsWritten)
      this.#bare.add(accountId)
  }

  /** The JSON text of a kept check, as the database holds it when this instance wrote it. */
  textOf(check: CheckRecord): string {
    let text = this.#texts.get(check)
    if (text === undefined) this.#texts.set(check, (text = JSON.stringify(check)))
    return text
  }

  #put(check: CheckRecord, keys: readonly string[]): void {
    this.#checks.delete(check.id)
    this.#checks.set(check.id, check)
    for (const key of keys) this.#ids.set(key, check.id)
    if (this.#checks.size > KEPT) this.#checks.delete(this.#checks.keys().next().value!)
    // a lookup whose check went is a miss, and is found again: the lookups are let go of with the checks
    if (this.#ids.size > 3 * KEPT) this.#ids.clear()
  }

  /** The stretch of time alone this instance is in, if it is; the checks kept in an earlier one are dropped. */
  #alone(): number | undefined {
    const stretch = this.stretch()
    if (stretch !== this.#stretch) {
      this.clear()
      this.#stretch = stretch
    }
    return stretch
  }

  /** Drops the checks among a unit's `changes`, and the accounts whose endpoints it wrote, before its answer. */
  forget(changes: readonly Change[]): void {
    for (const [collection, id, record] of changes) {
      if (collection === 'webhook_endpoints') {
        this.#endpointsWritten++
        // a deletion does not say its account
        if (record) this.#bare.delete((record as WebhookEndpointRecord).account_id)
        else this.#bare.clear()
      }
      if (collection !== 'checks') continue
      this.#checks.delete(id)
      this.#dropped++
    }
  }

  /** Drops every check and account kept. */
  clear(): void {
    this.#checks.clear()
    this.#ids.clear()
    this.#bare.clear()
    this.#dropped++
    this.#endpointsWritten++
  }
}
