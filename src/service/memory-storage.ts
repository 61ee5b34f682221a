import type {CheckRecord, CollectionName, Collections, SnapshotRecord} from '../domain/records.js'
import {
  type SavedSnapshot,
  type SnapshotCollection,
  type SnapshotHead,
  snapshotRecord,
  type SnapshotRecords,
  STORED_COLLECTIONS,
} from '../domain/snapshots.js'
import type {Change, Store} from '../store/store.js'
import {GUEST_SCOPE} from '../store/tables.js'
import type {Table} from '../store/table.js'
import {Unread} from '../store/unread.js'
import type {Holder, PageOf, PageQuery, Reader, Storage, UnitOfWork, Where} from './storage.js'
import {UnitWrites} from './unit-writes.js'

type Row = Record<string, unknown>

/** The reads of the in-memory store, as the storage interface has them. */
class MemoryReader implements Reader {
  constructor(readonly store: Store) {}

  table<C extends CollectionName>(collection: C): Table<Collections[C]> {
    return this.store.tables[collection] as unknown as Table<Collections[C]>
  }

  get<C extends CollectionName>(collection: C, id: string): Promise<Collections[C] | undefined> {
    return Promise.resolve(this.table(collection).get(id))
  }

  has(collection: CollectionName, id: string): Promise<boolean> {
    return Promise.resolve(this.table(collection).stored(id) !== undefined)
  }

  getMany<C extends CollectionName>(collection: C, ids: readonly string[]): Promise<(Collections[C] | undefined)[]> {
    const table = this.table(collection)
    return Promise.resolve(ids.map((id) => table.get(id)))
  }

  checkByExternalId(accountId: string, externalId: string): Promise<CheckRecord | undefined> {
    return Promise.resolve(this.store.tables.checks.getByAlternate(accountId, externalId))
  }

  checkByGuestToken(token: string): Promise<CheckRecord | undefined> {
    return Promise.resolve(this.store.tables.checks.getByAlternate(GUEST_SCOPE, token))
  }

  list<C extends CollectionName>(collection: C, accountId: string, where?: Where<C>): Promise<Collections[C][]> {
    const table = this.table(collection)
    // a filter on the table's group (a delivery's event) reads the group, not the account's millions of records
    const group = table.groupBy === undefined ? undefined : (where as Row | undefined)?.[table.groupBy]
    if (typeof group === 'string') return Promise.resolve([...table.inGroup(group, {...where, account_id: accountId})])
    if (Array.isArray(group)) {
      const inGroups = (group as string[]).flatMap((one) => [
        ...table.inGroup(one, {...where, [table.groupBy!]: one, account_id: accountId}),
      ])
      return Promise.resolve(inGroups)
    }
    if (where && Object.values(where).some(Array.isArray))
      throw new Error(
        `store: a list of values filters only ${collection}'s group, not ${Object.keys(where).join(', ')}`,
      )
    const records: Collections[C][] = []
    table.forEachOf(accountId, (record) => void records.push(record), where)
    return Promise.resolve(records)
  }

  page<C extends CollectionName>(
    collection: C,
    accountId: string,
    {limit, startingAfter, where, oldestFirst}: PageQuery<C>,
  ): Promise<PageOf<Collections[C]> | undefined> {
    const walk = this.table(collection).walk(accountId, {after: startingAfter, oldestFirst}, where)
    return Promise.resolve(walk && firstPage(walk, limit))
  }

  pageIds(
    collection: CollectionName,
    accountId: string,
    {limit, startingAfter, oldestFirst}: Omit<PageQuery<CollectionName>, 'where'>,
  ): Promise<PageOf<string> | undefined> {
    const walk = this.table(collection).walkIds(accountId, {after: startingAfter, oldestFirst})
    return Promise.resolve(walk && firstPage(walk, limit))
  }

  count(collection: CollectionName, accountId: string): Promise<number> {
    return Promise.resolve(this.store.tables[collection].count(accountId))
  }

  countPast(collection: CollectionName, accountId: string, kept: number): Promise<number> {
    return Promise.resolve(Math.max(0, this.store.tables[collection].count(accountId) - kept))
  }

  all<C extends CollectionName>(collection: C, where?: Where<C>): Promise<Collections[C][]> {
    return Promise.resolve([...this.table(collection).all(where)])
  }

  // a snapshot still unread (store/unread.ts) stays so: only its fields before its records are read
  snapshots(accountId: string): Promise<SavedSnapshot[]> {
    const table = this.table('snapshots')
    const ids = [...(table.walkIds(accountId, {oldestFirst: true}) ?? [])]
    return Promise.resolve(
      ids.map((id) => {
        const stored = table.stored(id)!
        if (!(stored instanceof Unread)) return stored
        return {...(stored.before('records') as Omit<SavedSnapshot, 'account_id'>), account_id: stored.accountId}
      }),
    )
  }

  heldElsewhere(collection: CollectionName, ids: readonly string[], accountId: string): Promise<Holder[]> {
    const held: Holder[] = []
    for (const id of ids) {
      const record = this.table(collection).get(id)
      if (record && record.account_id !== accountId) held.push({id, account_id: record.account_id})
    }
    return Promise.resolve(held)
  }

  guestTokensElsewhere(tokens: readonly string[], accountId: string): Promise<Holder[]> {
    const checks = this.store.tables.checks
    const held: Holder[] = []
    for (const token of tokens) {
      const check = checks.getByAlternate(GUEST_SCOPE, token)
      if (check && check.account_id !== accountId) held.push({id: token, account_id: check.account_id})
    }
    return Promise.resolve(held)
  }
}

/** The first `limit` items of `walk`, and whether there are more. */
function firstPage<R>(walk: Iterable<R>, limit: number): PageOf<R> {
  const records: R[] = []
  let hasMore = false
  for (const item of walk) {
    if (records.length === limit) {
      hasMore = true
      break
    }
    records.push(item)
  }
  return {records, hasMore}
}

/** One unit of work: it collects its writes, which the storage applies when the unit ends. */
class MemoryUnit extends MemoryReader implements UnitOfWork {
  readonly #writes = new UnitWrites()

  /** Units run one at a time here: no other unit can make the record before this one ends. */
  getExclusive<C extends CollectionName>(collection: C, id: string): Promise<Collections[C] | undefined> {
    return this.get(collection, id)
  }

  /** Units run one at a time here: none writes the account meanwhile. */
  lockAccount(): Promise<void> {
    return Promise.resolve()
  }

  // one unit at a time: a restore runs before or after any other
  writesTo(): void {}

  put<C extends CollectionName>(collection: C, id: string, record: Collections[C]): void {
    this.#writes.put(collection, id, record)
  }

  delete(collection: CollectionName, id: string, owner?: string): void {
    this.#writes.delete(collection, id, owner)
  }

  // one unit at a time: every collection is read at one moment
  async saveSnapshot(head: SnapshotHead): Promise<SnapshotRecord> {
    const records = {} as Record<SnapshotCollection, unknown[]>
    for (const collection of STORED_COLLECTIONS) records[collection] = await this.list(collection, head.account_id)
    const snapshot = snapshotRecord(head, records as SnapshotRecords)
    this.put('snapshots', snapshot.id, snapshot)
    return snapshot
  }

  deleteAll(collection: CollectionName, accountId: string): Promise<number> {
    const changes = this.#writes.open
    // newest first: each delete then takes the end of the account's id list, so clearing it costs O(n), not O(n²)
    const ids = this.store.tables[collection].idsOf(accountId)
    for (let i = ids.length - 1; i >= 0; i--) changes.push([collection, ids[i]!, null] as Change)
    return Promise.resolve(ids.length)
  }

  /** Ends the unit: returns its writes (none the second time), and refuses any more. */
  end(): Change[] {
    return this.#writes.end()
  }
}

/**
 * The storage interface over the in-memory store and its journal. Units of
 * work run one at a time (each waits for the one before it to apply its
 * writes), so what a unit read cannot change under it; its writes reach
 * memory when it ends (the next request sees them) and disk with the next
 * journal write. Units do not nest: a unit that starts another waits forever.
 */
export class MemoryStorage extends MemoryReader implements Storage {
  /** A unit is under way; the next ones wait in `#waiting`. */
  #busy = false
  readonly #waiting: (() => void)[] = []

  async unit<T>(work: (tx: UnitOfWork) => Promise<T>, durable?: (changes: readonly Change[]) => void): Promise<T> {
    if (this.#busy) await new Promise<void>((resolve) => this.#waiting.push(resolve))
    this.#busy = true
    const tx = new MemoryUnit(this.store)
    let value: T
    let changes: Change[]
    let written: Promise<void>
    try {
      value = await work(tx)
      changes = tx.end()
      written = this.store.commit(changes)
    } finally {
      tx.end()
      this.#release()
    }
    await written
    if (durable && changes.length > 0) durable(changes)
    return value
  }

  /** Hands the storage to the next unit waiting, if any. */
  #release(): void {
    const next = this.#waiting.shift()
    if (next) next()
    else this.#busy = false
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
