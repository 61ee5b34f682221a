import {refuseWritten} from '../domain/json-memory.js'
import {RecentMap} from './recent-map.js'
import {Unread} from './unread.js'

/**
 * An alternate key: a scope (a check's account, or `guest` for guest
 * tokens) and a key unique within it. In two parts, so that a lookup joins
 * no strings: a new string per lookup would have its hash computed each
 * time (docs/benchmarks.md, "Where the time goes now").
 */
export type AlternateKey = readonly [scope: string, key: string]

/** The alternate keys of a table without any: one list for all its records, not a new one per put. */
const NO_KEYS: readonly AlternateKey[] = []

/** Fields and the values a record must have to be listed (`undefined`: any). */
export type Where = Readonly<Record<string, unknown>>

/** The ids of a group without records. */
const NO_IDS: readonly string[] = []

/** How many deleted ids a table remembers the place of, so a list cursor naming one still pages on. */
const GONE_KEPT = 10_000

/** A record (or its text, until asked for: unread.ts) and its place in the order records were first stored. */
interface Slot<T> {
  record: T | Unread
  seq: number
}

const accountOf = (record: {account_id: string} | Unread) =>
  record instanceof Unread ? record.accountId : record.account_id

/**
 * One account's ids in the order first stored, with their places (`seqs`,
 * ascending). Deleting the oldest, as retention does, moves `head` on; the
 * array is compacted once most of it is behind `head`.
 */
interface Order {
  ids: (string | undefined)[]
  seqs: number[]
  head: number
}

export interface TableOptions<T> {
  /** More unique keys to find records by (a check's account and external id, its guest token). */
  alternateKeysOf?: (record: T) => readonly AlternateKey[]
  /** A field records are grouped by, to find a group's ids at once (a delivery's `event_id`). */
  groupBy?: keyof T & string
  /**
   * Records read from disk may stay unparsed until asked for (`put` of an
   * Unread): only for a table keyed by `id`, without alternate keys, and
   * grouped (if at all) by one of `unreadFields`.
   */
  readOnDemand?: boolean
  /**
   * Records are kept as their JSON bytes, outside V8's heap, whatever stores
   * them (a `readOnDemand` table's only): a `put` keeps the JSON of the record
   * it is given, and a read parses it, keeping parsed only the last record
   * read or put (a test suite restores one snapshot before every test). For records
   * of megabytes read rarely, snapshots: kept parsed, each took some 1.3
   * times its JSON of the heap until the server ran out of it
   * (docs/storage.md, "Read on demand").
   */
  keptAsJson?: boolean
  /**
   * The fields besides id and account that a record kept unread tells from
   * its bytes (unread.ts): its group, and what filters ask (a delivery's
   * endpoint and status), so that neither reads it.
   */
  unreadFields?: readonly string[]
}

/** Where a walk of an account's records starts (after `after`, which may have been deleted recently), and which way it goes. */
export interface WalkOptions {
  after?: string
  oldestFirst?: boolean
}

/** A record's JSON as UTF-8: no longer than a store writes one (json-memory.ts), which it would not read back. */
function jsonBytes(json: string): Buffer {
  const bytes = Buffer.from(json)
  refuseWritten(bytes.length)
  return bytes
}

/** The first index in `seqs[from…]` whose value is at least `seq`. */
function lowerBound(seqs: number[], from: number, seq: number): number {
  let low = from
  let high = seqs.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (seqs[middle]! < seq) low = middle + 1
    else high = middle
  }
  return low
}

/**
 * One collection in memory: records by id, plus each account's ids in the
 * order they were created, so lists page without sorting, and a list cursor
 * keeps its place after its record is deleted (docs/api.md, "Lists").
 */
export class Table<T extends {account_id: string}> {
  readonly #byId = new Map<string, Slot<T>>()
  readonly #byAccount = new Map<string, Order>()
  /** Alternate keys, by scope, to their record's slot (not its id): a lookup by external id reads no id map. */
  readonly #byAlternate = new Map<string, Map<string, Slot<T>>>()
  /** Each group's ids: the only one as itself, as most groups hold one (an event delivered to one endpoint), else a list. */
  readonly #groups = new Map<string, string | string[]>()
  /** The last GONE_KEPT ids deleted, and their accounts and places. */
  readonly #gone = new RecentMap<string, {accountId: string; seq: number}>(GONE_KEPT)
  readonly #alternateKeysOf: (record: T) => readonly AlternateKey[]
  /** The field of `TableOptions.groupBy`, if any: a list filtered on it reads the group's ids. */
  readonly groupBy: (keyof T & string) | undefined
  readonly readOnDemand: boolean
  readonly keptAsJson: boolean
  /** In a table `keptAsJson`, the last record read or put: its bytes, and what they parsed to. */
  #lastRead: {unread: Unread; record: T} | undefined
  readonly unreadFields: readonly string[]
  #seq = 0

  /**
   * Alternate keys and the group must not change between versions of a
   * record: they are set when it is first stored, so that an update, the
   * common write, costs no re-keying.
   */
  constructor(
    readonly keyOf: (record: T) => string,
    options: TableOptions<T> = {},
  ) {
    this.unreadFields = options.unreadFields ?? []
    if (
      options.readOnDemand &&
      (options.alternateKeysOf || (options.groupBy && !this.unreadFields.includes(options.groupBy)))
    ) {
      throw new Error(
        'a table read on demand has no alternate keys, and groups only by a field its unread records know: they would need every record read',
      )
    }
    this.#alternateKeysOf = options.alternateKeysOf ?? (() => NO_KEYS)
    this.groupBy = options.groupBy
    this.readOnDemand = options.readOnDemand === true
    this.keptAsJson = this.readOnDemand && options.keptAsJson === true
  }

  getByAlternate(scope: string, key: string): T | undefined {
    const slot = this.#byAlternate.get(scope)?.get(key)
    return slot && this.#read(slot)
  }

  get(id: string): T | undefined {
    const slot = this.#byId.get(id)
    return slot && this.#read(slot)
  }

  /** The record `id` as stored: parsed, or still unread in a table `readOnDemand`, which this leaves so. */
  stored(id: string): T | Unread | undefined {
    return this.#byId.get(id)?.record
  }

  /**
   * Whether the slot's record has each value `where` gives (one undefined
   * matches anything); a record still unparsed is read only when the fields
   * it knows do not tell.
   */
  #matches(slot: Slot<T>, where: Where | undefined): boolean {
    if (where === undefined) return true
    const {record} = slot
    if (record instanceof Unread) {
      let told = true
      for (const key in where) {
        if (where[key] === undefined) continue
        const value = record.field(key)
        if (value === undefined) told = false
        else if (value !== where[key]) return false
      }
      if (told) return true
    }
    const read = this.#read(slot) as Record<string, unknown>
    for (const key in where) if (where[key] !== undefined && read[key] !== where[key]) return false
    return true
  }

  /** The slot's record, parsed now if it was still unparsed (and kept parsed, but in a table `keptAsJson`). */
  #read(slot: Slot<T>): T {
    const {record} = slot
    if (!(record instanceof Unread)) return record
    if (!this.keptAsJson) return (slot.record = record.read() as T)
    if (this.#lastRead?.unread !== record) this.#lastRead = {unread: record, record: record.read() as T}
    return this.#lastRead.record
  }

  get size(): number {
    return this.#byId.size
  }

  /**
   * The next record stored gets a place after `seq` (and after every place
   * given so far): a chunked document's records get back places in their
   * chunk's range when read (docs/storage.md, "Chunks").
   */
  placeAfter(seq: number): void {
    if (seq > this.#seq) this.#seq = seq
  }

  /**
   * Stores the record (a new version of the one with its id keeps that one's place), parsed or, in a table
   * `readOnDemand`, still unread; returns its place. `json`, the record's JSON when the caller has it (its
   * journal line's), spares a table `keptAsJson` serializing it again: 35 ms of a save of 1,000 checks.
   */
  put(record: T | Unread, json?: string): number {
    if (record instanceof Unread) return this.#putUnread(record)
    // a record whose JSON an unread one cannot stand for (its id or account not plain strings) stays parsed
    const unread = this.keptAsJson ? Unread.of(jsonBytes(json ?? JSON.stringify(record))) : undefined
    if (this.keptAsJson) this.#lastRead = undefined
    if (unread) {
      const seq = this.#putUnread(unread)
      // as if read: a snapshot saved is often restored next
      this.#lastRead = {unread, record}
      return seq
    }
    const id = this.keyOf(record)
    const slot = this.#byId.get(id)
    if (slot) {
      slot.record = record
      return slot.seq
    }
    const placed = this.#place(id, record.account_id, record)
    for (const [scope, key] of this.#alternateKeysOf(record)) {
      const keys = this.#byAlternate.get(scope)
      if (keys) keys.set(key, placed)
      else this.#byAlternate.set(scope, new Map([[key, placed]]))
    }
    this.#group(id, record)
    return placed.seq
  }

  /** The group of a record (`groupBy`), from the field an unread one knows. */
  #groupOf(record: T | Unread): string {
    return record instanceof Unread ? record.field(this.groupBy!)! : String(record[this.groupBy!])
  }

  /** Adds a new record's id to its group. */
  #group(id: string, record: T | Unread): void {
    if (!this.groupBy) return
    const group = this.#groupOf(record)
    const ids = this.#groups.get(group)
    if (ids === undefined) this.#groups.set(group, id)
    else if (typeof ids === 'string') this.#groups.set(group, [ids, id])
    else ids.push(id)
  }

  /** Stores a record read from disk unparsed (a table `readOnDemand`), as `put` stores it parsed; returns its place. */
  #putUnread(unread: Unread): number {
    if (!this.readOnDemand) throw new Error('this table reads every record at once')
    const slot = this.#byId.get(unread.id)
    if (slot) {
      if (this.#lastRead?.unread === slot.record) this.#lastRead = undefined
      slot.record = unread
      return slot.seq
    }
    const placed = this.#place(unread.id, unread.accountId, unread)
    this.#group(unread.id, unread)
    return placed.seq
  }

  /** A new slot for `id`, at the next place, last in its account's order. */
  #place(id: string, accountId: string, record: T | Unread): Slot<T> {
    const seq = ++this.#seq
    const placed = {record, seq}
    this.#byId.set(id, placed)
    const order = this.#byAccount.get(accountId)
    if (order) {
      order.ids.push(id)
      order.seqs.push(seq)
    } else {
      this.#byAccount.set(accountId, {ids: [id], seqs: [seq], head: 0})
    }
    return placed
  }

  /** Deletes the record; returns the place it had, or undefined when there was none. */
  delete(id: string): number | undefined {
    const slot = this.#byId.get(id)
    if (!slot) return undefined
    const {record, seq} = slot
    this.#byId.delete(id)
    this.#unindex(id, record)
    const accountId = accountOf(record)
    this.#gone.set(id, {accountId, seq})
    const order = this.#byAccount.get(accountId)!
    const at = lowerBound(order.seqs, order.head, seq)
    // the oldest (retention) and the newest (a reset, newest first) cost O(1); others are rare
    if (at === order.ids.length - 1) {
      order.ids.pop()
      order.seqs.pop()
    } else if (at === order.head) {
      order.ids[at] = undefined
      order.head++
      if (order.head > 1024 && order.head * 2 > order.ids.length) {
        order.ids.splice(0, order.head)
        order.seqs.splice(0, order.head)
        order.head = 0
      }
    } else {
      order.ids.splice(at, 1)
      order.seqs.splice(at, 1)
    }
    if (order.head === order.ids.length) this.#byAccount.delete(accountId)
    return seq
  }

  /** Drops the record's alternate keys (a record still unparsed has none: `readOnDemand`) and its id from its group. */
  #unindex(id: string, record: T | Unread): void {
    if (this.#lastRead?.unread === record) this.#lastRead = undefined
    if (!(record instanceof Unread)) {
      for (const [scope, key] of this.#alternateKeysOf(record)) {
        const keys = this.#byAlternate.get(scope)
        if (keys?.delete(key) && keys.size === 0) this.#byAlternate.delete(scope)
      }
    }
    if (this.groupBy) {
      const group = this.#groupOf(record)
      const ids = this.#groups.get(group)!
      if (typeof ids === 'string') this.#groups.delete(group)
      else if (ids.length === 2) this.#groups.set(group, ids[0] === id ? ids[1]! : ids[0]!)
      else ids.splice(ids.indexOf(id), 1)
    }
  }

  /** How many records the account has. */
  count(accountId: string): number {
    const order = this.#byAccount.get(accountId)
    return order ? order.ids.length - order.head : 0
  }

  /** The account's ids, oldest first (a copy). */
  idsOf(accountId: string): string[] {
    const order = this.#byAccount.get(accountId)
    return order ? (order.ids.slice(order.head) as string[]) : []
  }

  /** Calls `visit` with each of the account's records that match `where`, oldest first, until it returns false. */
  forEachOf(accountId: string, visit: (record: T) => boolean | void, where?: Where): void {
    const order = this.#byAccount.get(accountId)
    if (!order) return
    const {ids} = order
    for (let i = order.head; i < ids.length; i++) {
      const slot = this.#byId.get(ids[i]!)!
      if (this.#matches(slot, where) && visit(this.#read(slot)) === false) return
    }
  }

  /**
   * The account's records newest first (or oldest first), after the one
   * `after` names, which may have been deleted recently; undefined when
   * `after` names no record of this table the table remembers.
   */
  walk(accountId: string, options: WalkOptions, where?: Where): Iterable<T> | undefined {
    const walk = this.#walk(accountId, options, (slot) => slot)
    return walk && this.#reading(walk, where)
  }

  /** The records of the slots that match `where`. */
  *#reading(slots: Iterable<Slot<T>>, where: Where | undefined): Generator<T> {
    for (const slot of slots) if (this.#matches(slot, where)) yield this.#read(slot)
  }

  /** The ids `walk` would give the records of: a caller that needs no more reads no record (one still unparsed stays so). */
  walkIds(accountId: string, options: WalkOptions): Iterable<string> | undefined {
    return this.#walk(accountId, options, (_slot, id) => id)
  }

  #walk<R>(
    accountId: string,
    {after, oldestFirst = false}: WalkOptions,
    yielded: (slot: Slot<T>, id: string) => R,
  ): Iterable<R> | undefined {
    const order = this.#byAccount.get(accountId)
    let start: number
    if (after === undefined) {
      start = oldestFirst ? (order?.head ?? 0) : (order?.ids.length ?? 0) - 1
    } else {
      const slot = this.#byId.get(after)
      const own = slot && accountOf(slot.record) === accountId ? {accountId, seq: slot.seq} : undefined
      // the place of the account's record, or of one it deleted: another account's is no cursor of this one's
      const place = own ?? this.#gone.get(after)
      if (place?.accountId !== accountId) return undefined
      if (!order) return []
      const at = lowerBound(order.seqs, order.head, place.seq)
      const exact = at < order.ids.length && order.seqs[at] === place.seq
      start = oldestFirst ? (exact ? at + 1 : at) : at - 1
    }
    if (!order) return []
    return this.#from(order, start, oldestFirst ? 1 : -1, yielded)
  }

  *#from<R>(order: Order, start: number, step: 1 | -1, yielded: (slot: Slot<T>, id: string) => R): Generator<R> {
    // read at once by the caller: nothing is deleted between two steps
    for (let i = start; i >= order.head && i < order.ids.length; i += step) {
      const id = order.ids[i]
      const slot = id === undefined ? undefined : this.#byId.get(id)
      if (slot) yield yielded(slot, id!)
    }
  }

  /** The ids of the records in `group`, oldest first (live: do not modify). */
  groupIds(group: string): readonly string[] {
    const ids = this.#groups.get(group)
    return ids === undefined ? NO_IDS : typeof ids === 'string' ? [ids] : ids
  }

  /** The records in `group` that match `where`, oldest first. */
  inGroup(group: string, where?: Where): Generator<T> {
    return this.#reading(
      this.groupIds(group).map((id) => this.#byId.get(id)!),
      where,
    )
  }

  /** Every record that matches `where`, in the order of their places. */
  all(where?: Where): Generator<T> {
    return this.#reading(this.#byId.values(), where)
  }

  /**
   * Calls `visit` with every record and its place, in the order of their
   * places; a record still unparsed is handed over as such: a compaction copies it.
   */
  forEachPlaced(visit: (record: T | Unread, seq: number) => void): void {
    // a Map keeps insertion order, and places are given in insertion order, ascending
    for (const slot of this.#byId.values()) visit(slot.record, slot.seq)
  }
}
