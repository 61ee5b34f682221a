import {renderScratchAccount, scratchAccount} from '../domain/accounts.js'
import {ApiError} from '../domain/errors.js'
import {limitOf} from '../domain/limits.js'
import {restoreSetting} from '../domain/snapshots.js'
import type {AccountRecord, CollectionName} from '../domain/records.js'
import type {ScratchAccount} from '../domain/schemas.js'
import type {Seed} from '../domain/seed-schema.js'
import {seedChanges} from '../store/seed.js'
import type {ServiceContext} from './context.js'
import type {Outbox, UnitReads} from './outbox.js'
import type {Traffic} from './sim.js'
import type {Reader, UnitOfWork} from './storage.js'
import {Turns} from '../shared/turns.js'

/** Every collection, in the store's order: deleting an account clears them all. */
const COLLECTIONS: readonly CollectionName[] = [
  'accounts',
  'api_keys',
  'locations',
  'checks',
  'claims',
  'payments',
  'feedback',
  'idempotency_keys',
  'events',
  'webhook_endpoints',
  'deliveries',
  'settings',
  'snapshots',
]

/** What a unit that may delete an account reads: all it holds, deliveries and endpoints included. */
const DELETES: UnitReads = {reads: COLLECTIONS}

/**
 * The account a request acts for, read in the unit of work of its change, or by a read that found nothing.
 * Its key was found when the request arrived, but a scratch account can be deleted before the change runs
 * (its body still on the way, or its unit queued behind the deletion): a change that would write into it is
 * refused as its key now is, and nothing is left in an account that is gone; a read is refused so too,
 * rather than answer 404 or an empty list for what went with the account (docs/api.md, "Scratch accounts").
 */
export async function actingAccount(tx: Pick<Reader, 'get'>, accountId: string): Promise<AccountRecord> {
  const account = await tx.get('accounts', accountId)
  if (!account) throw accountGone()
  return account
}

/** The refusal of a request whose account was deleted while it ran: its key no longer works either. */
export const accountGone = (): ApiError =>
  new ApiError(
    'unauthenticated',
    'This API key stopped working: its account was deleted while the request ran. Use a key of an account that exists.',
  )

/**
 * The id, which no account has, whose exclusive read each creation of a scratch account takes first: creations
 * by different accounts then take turns and each counts the others' accounts, where on PostgreSQL they would
 * run at once and together go past the limit.
 */
const SCRATCH_TURN = 'scratch accounts'

/** Accounts, their locations and keys: the seed, and the scratch accounts of `checks replay`. */
export class Accounts {
  /**
   * The accounts this instance has seen requests of, least recently first (a use moves one to the end): what
   * decides which scratch account goes when a server holds as many as it may.
   */
  readonly #used = new Set<string>()
  /**
   * This instance's creations of scratch accounts, one after the other: each waits for SCRATCH_TURN inside its
   * unit, which on PostgreSQL holds a pool connection, so a burst of them would hold them all and stall every
   * other request.
   */
  readonly #creating = new Turns()

  constructor(
    readonly context: ServiceContext,
    readonly outbox: Outbox,
    readonly traffic: Traffic,
  ) {}

  /** Adds what `seed` has and the storage lacks; resolves true when it added anything. */
  seed(seed: Seed | undefined, fallback: () => Seed): Promise<boolean> {
    return this.outbox.unit({reads: ['accounts', 'locations', 'api_keys', 'webhook_endpoints']}, async (tx) => {
      const parsed = seed ?? ((await tx.all('accounts')).length === 0 ? fallback() : undefined)
      const lookup = {
        get: <C extends CollectionName>(collection: C, id: string) => tx.get(collection, id),
        endpointsOf: (accountId: string) => tx.count('webhook_endpoints', accountId),
      }
      const rules = {
        mostEndpoints: limitOf(this.context.limits, 'webhook_endpoints'),
        strictUrls: this.context.strictUrls,
      }
      const changes = parsed ? await seedChanges(lookup, parsed, new Date().toISOString(), rules) : []
      for (const [collection, id, record] of changes) tx.put(collection, id, record as never)
      return changes.length > 0
    })
  }

  /** Notes a request of the account, to tell which scratch account has gone unused longest. */
  noteUse(accountId: string): void {
    this.#used.delete(accountId)
    this.#used.add(accountId)
  }

  /**
   * A fresh account that resolves the same locations as `parentId`, with a write key: 201 and the account.
   * A server holds at most `LIMITS.scratch_accounts` of them: past it, the one unused longest goes, with all
   * it holds, in the same unit of work.
   *
   * @example
   * const scratch = await service.accounts.createScratch('acct_demo')
   */
  createScratch(parentId: string): Promise<ScratchAccount> {
    return this.#creating.run(() => this.#createScratch(parentId))
  }

  async #createScratch(parentId: string): Promise<ScratchAccount> {
    const {now} = this.context
    const {made, evicted} = await this.outbox.unit(DELETES, async (tx) => {
      await tx.getExclusive('accounts', SCRATCH_TURN)
      const parent = await actingAccount(tx, parentId)
      const accounts = await tx.all('accounts')
      const line = lineOf(parent, accounts)
      const scratch = scratchAccount(parent, await tx.list('locations', parent.id), now(), line.at(-1)!.id)
      const evicted = await this.#makeRoom(tx, accounts, line)
      tx.put('accounts', scratch.account.id, scratch.account)
      for (const {record} of scratch.locations) tx.put('locations', record.id, record)
      tx.put('api_keys', scratch.key.key, scratch.key)
      return {made: renderScratchAccount(scratch), evicted}
    })
    await this.#forget(evicted)
    return made
  }

  /**
   * Deletes scratch account `id` made by `parentId`, with the scratch
   * accounts it made (else nobody could delete them) and everything they
   * have, in one unit of work: their keys stop working as their data goes.
   * Their request logs and faults, kept beside the storage, go after it.
   */
  async deleteScratch(parentId: string, id: string): Promise<void> {
    const doomed = await this.outbox.unit(DELETES, async (tx) => {
      if ((await tx.get('accounts', id))?.scratch_of !== parentId)
        throw new ApiError('not_found', `No scratch account ${id} made by this account.`)
      return deleteWithScratch(tx, id)
    })
    await this.#forget(doomed)
  }

  /**
   * When the server holds as many scratch accounts as it may, deletes the one unused longest, with the
   * scratch accounts it made, and resolves with what went: first the oldest this instance has seen no request
   * of, else the one whose last request is the oldest; never one of `line` (the caller and the accounts above
   * it).
   */
  async #makeRoom(tx: UnitOfWork, accounts: readonly AccountRecord[], line: readonly AccountRecord[]) {
    // accounts deleted through another instance: forgotten here too
    const alive = new Set(accounts.map((account) => account.id))
    for (const id of this.#used) if (!alive.has(id)) this.#used.delete(id)
    const scratch = accounts.filter((account) => account.scratch_of !== undefined)
    if (scratch.length < limitOf(this.context.limits, 'scratch_accounts')) return []
    const spared = new Set(line.map((account) => account.id))
    // oldest first, as the storage lists them
    const candidates = scratch.filter((account) => !spared.has(account.id)).map((account) => account.id)
    const eligible = new Set(candidates)
    const unused = candidates.find((id) => !this.#used.has(id)) ?? [...this.#used].find((id) => eligible.has(id))
    return unused === undefined ? [] : deleteWithScratch(tx, unused)
  }

  /** The request logs, faults and use of accounts that were deleted: kept beside the storage, they go after it. */
  async #forget(accounts: readonly string[]): Promise<void> {
    for (const account of accounts) {
      this.#used.delete(account)
      this.traffic.requests.forget(account)
      await this.traffic.faults.clear(account)
    }
  }
}

/** `account` and the accounts above it, up its `scratch_of` line: the last is not a scratch account. */
function lineOf(account: AccountRecord, accounts: readonly AccountRecord[]): AccountRecord[] {
  const byId = new Map(accounts.map((a) => [a.id, a]))
  const line = [account]
  for (let up = byId.get(account.scratch_of ?? ''); up && !line.includes(up); up = byId.get(up.scratch_of ?? ''))
    line.push(up)
  return line
}

/**
 * Deletes account `id` and the scratch accounts it made, all they hold included; resolves with their ids. Each
 * is held as a restore holds it: a unit that writes into one meanwhile runs wholly after, and finds it gone.
 */
async function deleteWithScratch(tx: UnitOfWork, id: string): Promise<string[]> {
  const doomed = [id]
  for (let i = 0; i < doomed.length; i++)
    doomed.push(...(await tx.all('accounts', {scratch_of: doomed[i]})).map((a) => a.id))
  for (const account of doomed) {
    await tx.lockAccount(account)
    for (const name of COLLECTIONS) await tx.deleteAll(name, account)
    // kept among the server's settings, of no account: deleteAll leaves it
    const restores = restoreSetting(account)
    if (await tx.get('settings', restores)) tx.delete('settings', restores)
  }
  return doomed
}
