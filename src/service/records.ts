import type {CollectionName, Collections} from '../domain/records.js'
import type {SeededAccount} from '../domain/seeded-account.js'
import type {Storage} from './storage.js'

/** An account's records in one collection, as lists page through them: ids oldest first, and a lookup. */
export interface Listing<T> {
  ids: readonly string[]
  get: (id: string) => T | undefined
}

/**
 * The read side of the service: what routes show. Reads never lock; they
 * see what was acknowledged (an answer waits until that is durable).
 */
export class Records {
  constructor(readonly read: Storage) {}

  /** Resolves once everything acknowledged so far is durable: no answer shows what a crash could take back. */
  settled(): Promise<void> {
    return this.read.settled()
  }

  /** Set once a write failed: every answer is then 503 `storage_unavailable`. */
  get failure(): Error | undefined {
    return this.read.failure
  }

  /** Calls `listener` with the changes of each unit of work once durable: the live streams. */
  follow(listener: Parameters<Storage['subscribe']>[0]): () => void {
    return this.read.subscribe(listener)
  }

  /** The record `id` if it belongs to `accountId`; another account's record is as absent as a missing one. */
  owned<C extends CollectionName>(collection: C, accountId: string, id: string): Collections[C] | undefined {
    const record = this.read.get(collection, id)
    return record?.account_id === accountId ? record : undefined
  }

  get<C extends CollectionName>(collection: C, id: string): Collections[C] | undefined {
    return this.read.get(collection, id)
  }

  listing<C extends CollectionName>(collection: C, accountId: string): Listing<Collections[C]> {
    return {ids: this.read.idsOf(collection, accountId), get: (id) => this.read.get(collection, id)}
  }

  /** Every record of the account in `collection`, oldest first. */
  allOf<C extends CollectionName>(collection: C, accountId: string): Collections[C][] {
    return this.read.idsOf(collection, accountId).map((id) => this.read.get(collection, id)!)
  }

  checkByExternalId(accountId: string, externalId: string): Collections['checks'] | undefined {
    return this.read.checkByExternalId(accountId, externalId)
  }

  checkByGuestToken(token: string): Collections['checks'] | undefined {
    return this.read.checkByGuestToken(token)
  }

  /** Every account with its locations and keys, oldest first. */
  accounts(): SeededAccount[] {
    return [...this.read.all('accounts')].map((account) => ({
      id: account.id,
      name: account.name,
      locations: this.allOf('locations', account.id).map(({id, name}) => ({id, name})),
      api_keys: this.allOf('api_keys', account.id).map(({key, scopes}) => ({key, scopes})),
    }))
  }
}
