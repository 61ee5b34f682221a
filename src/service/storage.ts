import type {
  CheckRecord,
  CollectionName,
  Collections,
  DeliveryRecord,
  EventRecord,
  WebhookEndpointRecord,
} from '../domain/records.js'
import type {FaultRecord} from '../domain/faults.js'
import type {SavedSnapshot, SnapshotHead} from '../domain/snapshots.js'
import type {Change} from '../store/store.js'

export type {Change}

/**
 * Fields a record must have to be listed: the values given (an undefined one does not filter) (an undefined one matches anything). A list of values
 * matches any of them: on a table's group (a delivery's `event_id`), or on PostgreSQL a column, so that
 * retention reads the deliveries of several events at once.
 */
export type Where<C extends CollectionName> = {
  [K in keyof Collections[C]]?: Collections[C][K] | readonly Collections[C][K][]
}

/**
 * One page of a list, newest first (or oldest first): up to `limit` records
 * after the one `startingAfter` names, which may have been deleted since.
 */
export interface PageQuery<C extends CollectionName> {
  limit: number
  startingAfter?: string
  where?: Where<C>
  oldestFirst?: boolean
}

export interface PageOf<T> {
  records: T[]
  hasMore: boolean
}

/**
 * What the service reads: records by id, checks by their two other keys, and
 * an account's records in the order they were created. Every read is async,
 * as a database's is.
 */
export interface Reader {
  get<C extends CollectionName>(collection: C, id: string): Promise<Collections[C] | undefined>
  /** Whether a record is stored under `id`, without reading it (a snapshot's megabytes); a unit locks it as `get` does. */
  has(collection: CollectionName, id: string): Promise<boolean>
  /** The records of `ids`, each in its place (undefined where there is none): one statement on PostgreSQL. */
  getMany<C extends CollectionName>(collection: C, ids: readonly string[]): Promise<(Collections[C] | undefined)[]>
  /** A check by the id its caller gave it, within one account. */
  checkByExternalId(accountId: string, externalId: string): Promise<CheckRecord | undefined>
  /** A check by the token of its guest link. */
  checkByGuestToken(token: string): Promise<CheckRecord | undefined>
  /** The account's records in `collection` that match `where`, oldest first. */
  list<C extends CollectionName>(collection: C, accountId: string, where?: Where<C>): Promise<Collections[C][]>
  /** One page of the account's records; undefined when `startingAfter` is not one of them. */
  page<C extends CollectionName>(
    collection: C,
    accountId: string,
    query: PageQuery<C>,
  ): Promise<PageOf<Collections[C]> | undefined>
  /**
   * The ids of one page of the account's records, as `page` pages them
   * (without `where`): for a caller that needs no more, such as retention
   * deleting the oldest, which then reads no event kept unparsed
   * (store/unread.ts).
   */
  pageIds(
    collection: CollectionName,
    accountId: string,
    query: Omit<PageQuery<CollectionName>, 'where'>,
  ): Promise<PageOf<string> | undefined>
  /** Every record in `collection` that matches `where`, whatever its account, oldest first. */
  all<C extends CollectionName>(collection: C, where?: Where<C>): Promise<Collections[C][]>
  /** How many records the account has in `collection`. */
  count(collection: CollectionName, accountId: string): Promise<number>
  /**
   * How many of the account's records in `collection` are past its first `kept` (0 when it has no more):
   * PostgreSQL then tells it from the first and last record's places, without counting the records
   * (docs/postgres.md, "Retention at the bound").
   */
  countPast(collection: CollectionName, accountId: string, kept: number): Promise<number>
  /**
   * The account's snapshots, oldest first, without their records: on PostgreSQL read from the first few KB of
   * each, so that listing many large snapshots parses no records (src/postgres/snapshots.ts).
   */
  snapshots(accountId: string): Promise<SavedSnapshot[]>
  /** Which of `ids` another account than `accountId` holds in `collection`, and whose each is; nothing is locked. */
  heldElsewhere(collection: CollectionName, ids: readonly string[], accountId: string): Promise<Holder[]>
  /**
   * Which of `tokens` a check of another account than `accountId` has as its guest token, and whose each is
   * (the token as `id`); nothing is locked.
   */
  guestTokensElsewhere(tokens: readonly string[], accountId: string): Promise<Holder[]>
}

/** A record's id and the account that holds it (`heldElsewhere`). */
export interface Holder {
  id: string
  account_id: string
}

/**
 * What a rule reads while it decides, and the records it writes. What a unit
 * reads is locked until it ends, and what it writes is applied as one when
 * it ends: its own reads do not see its writes.
 */
export interface UnitOfWork extends Reader {
  /**
   * `get`, but first waiting for every other unit that read the same id this way to end, even when no such
   * record exists yet: two units that may both create it (one `Idempotency-Key` sent twice at once) take turns,
   * and the second finds what the first made.
   */
  getExclusive<C extends CollectionName>(collection: C, id: string): Promise<Collections[C] | undefined>
  put<C extends CollectionName>(collection: C, id: string, record: Collections[C]): void
  /** Deletes the record `id`; `owner`, its account, goes with the change to the live streams (`Change`). */
  delete(collection: CollectionName, id: string, owner?: string): void
  /**
   * Puts the snapshot `head` with the account's records of every collection a snapshot holds, oldest
   * first, read at one moment (no change lands between two collections; nothing is locked), and resolves
   * with it, its counts made (`snapshotRecord`). On PostgreSQL one statement copies them, so they never
   * travel to the server and back (src/postgres/snapshots.ts), and the records are not given back.
   */
  saveSnapshot(head: SnapshotHead): Promise<SavedSnapshot>
  /** Deletes every record of the account in `collection`; resolves with how many. */
  deleteAll(collection: CollectionName, accountId: string): Promise<number>
  /**
   * Waits until no other unit writes the account's records, and keeps them from it until this one ends: a
   * snapshot's restore, before any other read (docs/postgres.md, "Snapshots").
   */
  lockAccount(accountId: string): Promise<void>
  /**
   * Says, before the unit reads anything, that it writes the account's records: a restore of the account
   * then runs wholly before it or after it (docs/postgres.md, "Snapshots"). A unit that begins by naming
   * the account (a push) need not.
   */
  writesTo(accountId: string): void
}

/**
 * Where the service keeps its records (ARCHITECTURE.md, "Storage interface").
 * Reads outside a unit see what was acknowledged; a unit of work reads what
 * its rule needs, decides and writes, and no other unit changes what it read
 * before it ends.
 *
 * @example
 * const check = await storage.unit(async (tx) => {
 *   const next = close((await tx.get('checks', id))!)
 *   tx.put('checks', id, next)
 *   return next
 * })
 */
export interface Storage extends Reader {
  /**
   * Runs `work` as one unit and resolves with its value once what it wrote
   * is durable; `durable` then gets those changes. A throw writes nothing.
   */
  unit<T>(work: (tx: UnitOfWork) => Promise<T>, durable?: (changes: readonly Change[]) => void): Promise<T>
  /** Resolves once everything acknowledged so far is durable: an answer waits for it. */
  settled(): Promise<void>
  /** Set once a write failed: from then on every unit and `settled` reject with it. */
  readonly failure: Error | undefined
  /**
   * Calls `listener` with each unit's changes once durable: the live streams follow it. `remote` is true for
   * the changes of another instance sharing the storage (PostgreSQL). `only`: the collections whose remote
   * changes the listener needs; the others' records are then not read back for it (docs/postgres.md).
   */
  subscribe(
    listener: (changes: readonly Change[], remote?: boolean) => void,
    only?: readonly CollectionName[],
  ): () => void
  /** What the instances on one database share beyond records; absent when this instance is the only one. */
  readonly shared?: SharedStorage
}

/**
 * A claim's outcome: the delivery to attempt, with what its attempt sends to where as the claim read them
 * (the account's endpoint with the delivery's `endpoint_id` and the event, undefined once gone); `'held'`, still
 * due, by another live instance's lease or another transaction's lock on its row (src/postgres/leases.ts); or
 * undefined (not due at that time).
 */
export type Claim = ClaimedDelivery | 'held' | undefined

/** A delivery claimed for an attempt, and its endpoint and event as the claim read them. */
export interface ClaimedDelivery {
  delivery: DeliveryRecord
  endpoint: WebhookEndpointRecord | undefined
  event: EventRecord | undefined
}

/**
 * What several instances on one database need besides the records
 * (docs/postgres.md, "Delivery across instances"): a claim on each attempt,
 * and notes to the other instances (the request log).
 */
export interface SharedStorage {
  /**
   * Claims the delivery for its attempt due at `dueAt` (scheduler ms), with a lease of `leaseMs` (wall clock):
   * resolves with the delivery, its endpoint and its event, read with the claim, when this instance is to make
   * the attempt. The next write of the delivery ends the lease; so does the end of this instance's session.
   */
  claim(id: string, dueAt: number, leaseMs: number): Promise<Claim>
  /**
   * Sends the note `note()` makes to the other instances' `listen` on `topic`, best effort; false when it is
   * past 7,900 bytes of JSON, and not sent. Alone, it makes none: a push's trace note, its changes
   * computed, took an instance alone about 10 µs per push.
   */
  broadcast(topic: string, note: () => unknown): boolean
  /** Calls `listener` with each note another instance broadcast on `topic`. */
  listen(topic: string, listener: (note: unknown) => void): () => void
  /** Calls `listener` each time this instance hears notes again after its session was lost (those sent meanwhile are). */
  onReconnect(listener: () => void): () => void
  /** The faults of every instance, in the database (docs/postgres.md, "Faults across instances"). */
  readonly faults: SharedFaults
  /**
   * Runs `change` holding the clock's lock: another instance's clock change runs wholly before or after it.
   * `shared`: a restore's, which other restores share (each sets its own account, and may wait on its rows).
   */
  clockTurn<T>(change: () => Promise<T>, shared?: boolean): Promise<T>
}

/** A fault as the database keeps it: the record, and its place in creation order. */
export interface StoredFault {
  fault: FaultRecord
  seq: number
}

/**
 * The faults in the database, for every instance of it: the truth that each
 * instance's copy (src/service/faults.ts) follows, and where a strike is
 * counted, so that a fault strikes as many times as it was asked, in all.
 */
export interface SharedFaults {
  /** Every fault with strikes left, oldest first; `accountId`: only that account's. */
  all(accountId?: string): Promise<StoredFault[]>
  /**
   * Adds the fault unless its account holds `limit` faults already: then it resolves with how many it holds.
   * Additions of one account, through any instance, count in turn. Undefined, adding nothing, when the account
   * is gone.
   */
  add(fault: FaultRecord, limit: number): Promise<StoredFault | number | undefined>
  /** False when the account has no fault `id` with strikes left. */
  remove(accountId: string, id: string): Promise<boolean>
  /**
   * Removes every fault of the account; resolves with how many had strikes left, and `through`, the place in the
   * database's order of the last one removed (0 for none): one added since comes after it.
   */
  clear(accountId: string): Promise<{count: number; through: number}>
  /** Takes the fault's next draw: how many it has had with this one (from 1); undefined when it is gone. */
  draw(id: string): Promise<number | undefined>
  /** One strike of the fault, when it has one left: what is left (null: no end); undefined when it is gone. */
  strike(id: string): Promise<{remaining: number | null} | undefined>
}
