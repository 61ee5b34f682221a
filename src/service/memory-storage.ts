import type {CollectionName, Collections} from '../domain/records.js'
import {type Change, externalKey, guestKey, type Store} from '../store/store.js'
import type {Table} from '../store/table.js'
import type {Storage, UnitOfWork} from './storage.js'

/**
 * The storage interface over the in-memory store and its journal. A unit of
 * work runs synchronously: nothing else runs between its reads and its
 * writes, so it needs no lock, and its changes reach memory at once (the next
 * request sees them) and disk with the next journal write.
 */
export class MemoryStorage implements Storage {
  /** The changes of the unit under way; undefined between units. */
  #changes: Change[] | undefined
  readonly #tx: UnitOfWork

  constructor(readonly store: Store) {
    const changes = () => {
      if (!this.#changes) throw new Error('storage: a write outside a unit of work')
      return this.#changes
    }
    this.#tx = {
      get: (collection, id) => this.get(collection, id),
      checkByExternalId: (accountId, externalId) => this.checkByExternalId(accountId, externalId),
      checkByGuestToken: (token) => this.checkByGuestToken(token),
      idsOf: (collection, accountId) => this.idsOf(collection, accountId),
      all: (collection) => this.all(collection),
      count: (collection) => this.count(collection),
      put: (collection, id, record) => void changes().push([collection, id, record] as Change),
      delete: (collection, id) => void changes().push([collection, id, null] as Change),
    }
  }

  #table<C extends CollectionName>(collection: C): Table<Collections[C]> {
    return this.store.tables[collection] as unknown as Table<Collections[C]>
  }

  get<C extends CollectionName>(collection: C, id: string): Collections[C] | undefined {
    return this.#table(collection).get(id)
  }

  checkByExternalId(accountId: string, externalId: string): Collections['checks'] | undefined {
    return this.store.tables.checks.getByAlternate(externalKey(accountId, externalId))
  }

  checkByGuestToken(token: string): Collections['checks'] | undefined {
    return this.store.tables.checks.getByAlternate(guestKey(token))
  }

  idsOf(collection: CollectionName, accountId: string): readonly string[] {
    return this.store.tables[collection].idsOf(accountId)
  }

  all<C extends CollectionName>(collection: C): Iterable<Collections[C]> {
    return this.#table(collection).all()
  }

  count(collection: CollectionName): number {
    return this.store.tables[collection].size
  }

  unit<T>(work: (tx: UnitOfWork) => T, durable?: (changes: readonly Change[]) => void): Promise<T> {
    if (this.#changes) throw new Error('storage: units of work do not nest')
    const changes: Change[] = []
    this.#changes = changes
    let value: T
    try {
      value = work(this.#tx)
    } finally {
      this.#changes = undefined
    }
    return this.store.commit(changes).then(() => {
      if (durable && changes.length > 0) durable(changes)
      return value
    })
  }

  settled(): Promise<void> {
    return this.store.settled()
  }

  get failure(): Error | undefined {
    return this.store.failure
  }

  subscribe(listener: (changes: readonly Change[]) => void): () => void {
    return this.store.subscribe(listener)
  }
}
