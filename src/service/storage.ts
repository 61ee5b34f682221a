import type {CollectionName, Collections} from '../domain/records.js'
import type {Change} from '../store/store.js'

export type {Change}

/**
 * What the service reads: records by id, checks by their two other keys, and an
 * account's ids in the order they were created (lists page on them).
 */
export interface Reader {
  get<C extends CollectionName>(collection: C, id: string): Collections[C] | undefined
  /** A check by the id its caller gave it, within one account. */
  checkByExternalId(accountId: string, externalId: string): Collections['checks'] | undefined
  /** A check by the token of its guest link. */
  checkByGuestToken(token: string): Collections['checks'] | undefined
  /** The account's ids in `collection`, oldest first. Live: do not modify it. */
  idsOf(collection: CollectionName, accountId: string): readonly string[]
  all<C extends CollectionName>(collection: C): Iterable<Collections[C]>
  count(collection: CollectionName): number
}

/** What a rule reads while it decides, and the records it writes; all of it is applied as one. */
export interface UnitOfWork extends Reader {
  put<C extends CollectionName>(collection: C, id: string, record: Collections[C]): void
  delete(collection: CollectionName, id: string): void
}

/**
 * Where the service keeps its records (ARCHITECTURE.md, "Storage interface").
 * Reads outside a unit see what was acknowledged; a unit of work reads what
 * its rule needs, decides and writes, and no other unit interleaves.
 *
 * @example
 * const check = await storage.unit((tx) => {
 *   const next = close(tx.get('checks', id)!)
 *   tx.put('checks', id, next)
 *   return next
 * })
 */
export interface Storage extends Reader {
  /**
   * Runs `work` as one unit and resolves with its value once what it wrote
   * is durable; `durable` then gets those changes. A throw writes nothing.
   */
  unit<T>(work: (tx: UnitOfWork) => T, durable?: (changes: readonly Change[]) => void): Promise<T>
  /** Resolves once everything acknowledged so far is durable: an answer waits for it. */
  settled(): Promise<void>
  /** Set once a write failed: from then on every unit and `settled` reject with it. */
  readonly failure: Error | undefined
  /** Calls `listener` with each unit's changes once durable: the live streams follow it. */
  subscribe(listener: (changes: readonly Change[]) => void): () => void
}
