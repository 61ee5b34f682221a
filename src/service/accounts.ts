import {renderScratchAccount, scratchAccount} from '../domain/accounts.js'
import {ApiError} from '../domain/errors.js'
import type {AccountRecord, CollectionName} from '../domain/records.js'
import type {ScratchAccount, Seed} from '../domain/schemas.js'
import {seedChanges} from '../store/seed.js'
import type {ServiceContext} from './context.js'
import type {Outbox} from './outbox.js'
import type {Traffic} from './sim.js'
import type {Reader} from './storage.js'

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
]

/**
 * The account a request acts for, read in the unit of work of its change. Its key was found when the
 * request arrived, but a scratch account can be deleted before the change runs (its body still on the way,
 * or its unit queued behind the deletion): a change that would write into it is refused as its key now
 * is, and nothing is left in an account that is gone.
 */
export async function actingAccount(tx: Reader, accountId: string): Promise<AccountRecord> {
  const account = await tx.get('accounts', accountId)
  if (!account)
    throw new ApiError(
      'unauthenticated',
      'This API key stopped working: its account was deleted while the request ran. Use a key of an account that exists.',
    )
  return account
}

/** Accounts, their locations and keys: the seed, and the scratch accounts of `checks replay`. */
export class Accounts {
  constructor(
    readonly context: ServiceContext,
    readonly outbox: Outbox,
    readonly traffic: Traffic,
  ) {}

  /** Adds what `seed` has and the storage lacks; resolves true when it added anything. */
  seed(seed: Seed | undefined, fallback: () => Seed): Promise<boolean> {
    return this.outbox.commit(async (tx) => {
      const parsed = seed ?? ((await tx.all('accounts')).length === 0 ? fallback() : undefined)
      const lookup = <C extends CollectionName>(collection: C, id: string) => tx.get(collection, id)
      const changes = parsed ? await seedChanges(lookup, parsed, new Date().toISOString()) : []
      for (const [collection, id, record] of changes) tx.put(collection, id, record as never)
      return changes.length > 0
    })
  }

  /**
   * A fresh account that resolves the same locations as `parentId`, with a write key: 201 and the account.
   *
   * @example
   * const scratch = await service.accounts.createScratch('acct_demo')
   */
  createScratch(parentId: string): Promise<ScratchAccount> {
    const {now} = this.context
    return this.outbox.commit(async (tx) => {
      const parent = await actingAccount(tx, parentId)
      const scratch = scratchAccount(parent, await tx.list('locations', parent.id), now())
      tx.put('accounts', scratch.account.id, scratch.account)
      for (const {record} of scratch.locations) tx.put('locations', record.id, record)
      tx.put('api_keys', scratch.key.key, scratch.key)
      return renderScratchAccount(scratch)
    })
  }

  /**
   * Deletes scratch account `id` made by `parentId`, with the scratch
   * accounts it made (else nobody could delete them) and everything they
   * have, in one unit of work: their keys stop working as their data goes.
   * Their request logs and faults, kept beside the storage, go after it.
   */
  async deleteScratch(parentId: string, id: string): Promise<void> {
    const doomed = await this.outbox.commit(async (tx) => {
      if ((await tx.get('accounts', id))?.scratch_of !== parentId)
        throw new ApiError('not_found', `No scratch account ${id} made by this account.`)
      const doomed = [id]
      for (let i = 0; i < doomed.length; i++)
        doomed.push(...(await tx.all('accounts', {scratch_of: doomed[i]})).map((a) => a.id))
      for (const account of doomed) for (const name of COLLECTIONS) await tx.deleteAll(name, account)
      return doomed
    })
    for (const account of doomed) {
      this.traffic.requests.forget(account)
      await this.traffic.faults.clear(account)
    }
  }
}
