/** The alternate keys of a table without any: one list for all its records, not a new one per put. */
const NO_KEYS: readonly string[] = []

/**
 * One collection in memory: records by id, plus each account's ids in the
 * order they were created, so lists page without sorting.
 */
export class Table<T extends {account_id: string}> {
  readonly #byId = new Map<string, T>()
  readonly #byAccount = new Map<string, string[]>()
  readonly #byAlternate = new Map<string, string>()

  /**
   * `alternateKeysOf` gives more unique keys to look records up by (a
   * check's account and external id, its guest token). They must not change
   * between versions of a record: they are set when it is first stored, so
   * that an update, the common write, costs no re-keying.
   */
  constructor(
    readonly keyOf: (record: T) => string,
    readonly alternateKeysOf: (record: T) => readonly string[] = () => NO_KEYS,
  ) {}

  getByAlternate(key: string): T | undefined {
    const id = this.#byAlternate.get(key)
    return id === undefined ? undefined : this.#byId.get(id)
  }

  get(id: string): T | undefined {
    return this.#byId.get(id)
  }

  get size(): number {
    return this.#byId.size
  }

  put(record: T): void {
    const id = this.keyOf(record)
    const size = this.#byId.size
    // one lookup, not has() then set(): a push to 100 endpoints stores 100 new deliveries in a large table
    this.#byId.set(id, record)
    if (this.#byId.size === size) return
    const ids = this.#byAccount.get(record.account_id)
    if (ids) ids.push(id)
    else this.#byAccount.set(record.account_id, [id])
    for (const key of this.alternateKeysOf(record)) this.#byAlternate.set(key, id)
  }

  delete(id: string): void {
    const record = this.#byId.get(id)
    if (!record) return
    this.#byId.delete(id)
    for (const key of this.alternateKeysOf(record)) this.#byAlternate.delete(key)
    const ids = this.#byAccount.get(record.account_id)
    const at = ids ? ids.lastIndexOf(id) : -1
    if (at !== -1) ids!.splice(at, 1)
  }

  /** The account's ids, oldest first. The array is live: do not modify it. */
  idsOf(accountId: string): readonly string[] {
    return this.#byAccount.get(accountId) ?? []
  }

  all(): IterableIterator<T> {
    return this.#byId.values()
  }
}
