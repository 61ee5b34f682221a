import type {CollectionName, Collections} from '../domain/records.js'
import type {SeededAccount} from '../domain/seeded-account.js'
import {endpointOf} from './endpoints.js'
import type {Outbox} from './outbox.js'
import type {PageOf, PageQuery, Storage} from './storage.js'

/**
 * The read side of the service: what routes show. Reads never lock; they
 * see what was acknowledged (an answer waits until that is durable).
 */
export class Records {
  constructor(
    readonly read: Storage,
    readonly outbox: Outbox,
  ) {}

  /** `read()`, once a read of `collection` sees the deliveries of every change acknowledged so far. */
  #seeing<T>(collection: CollectionName, read: () => Promise<T>): Promise<T> {
    return this.outbox.after([collection], read)
  }

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
  async owned<C extends CollectionName>(
    collection: C,
    accountId: string,
    id: string,
  ): Promise<Collections[C] | undefined> {
    const record = await this.#seeing(collection, () => this.read.get(collection, id))
    return record?.account_id === accountId ? record : undefined
  }

  /** The account's webhook endpoint `id`, wherever it is kept (`endpointOf`). */
  endpoint(accountId: string, id: string): Promise<Collections['webhook_endpoints'] | undefined> {
    return this.#seeing('webhook_endpoints', () => endpointOf(this.read, accountId, id))
  }

  get<C extends CollectionName>(collection: C, id: string): Promise<Collections[C] | undefined> {
    return this.#seeing(collection, () => this.read.get(collection, id))
  }

  /** One page of the account's records, newest first; undefined when `startingAfter` is not one of them. */
  page<C extends CollectionName>(
    collection: C,
    accountId: string,
    query: PageQuery<C>,
  ): Promise<PageOf<Collections[C]> | undefined> {
    return this.#seeing(collection, () => this.read.page(collection, accountId, query))
  }

  /** Every record of the account in `collection`, oldest first. */
  allOf<C extends CollectionName>(collection: C, accountId: string): Promise<Collections[C][]> {
    return this.#seeing(collection, () => this.read.list(collection, accountId))
  }

  checkByExternalId(accountId: string, externalId: string): Promise<Collections['checks'] | undefined> {
    return this.read.checkByExternalId(accountId, externalId)
  }

  checkByGuestToken(token: string): Promise<Collections['checks'] | undefined> {
    return this.read.checkByGuestToken(token)
  }

  /** Every account with its locations and keys, oldest first. */
  async accounts(): Promise<SeededAccount[]> {
    const accounts = await this.read.all('accounts')
    return Promise.all(
      accounts.map(async (account) => ({
        id: account.id,
        name: account.name,
        locations: (await this.allOf('locations', account.id)).map(({id, name}) => ({id, name})),
        api_keys: (await this.allOf('api_keys', account.id)).map(({key, scopes}) => ({key, scopes})),
      })),
    )
  }
}
