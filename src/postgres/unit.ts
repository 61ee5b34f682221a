import type pg from 'pg'
import type {CheckRecord, CollectionName, Collections, WebhookEndpointRecord} from '../domain/records.js'
import type {SavedSnapshot, SnapshotHead} from '../domain/snapshots.js'
import type {Change, UnitOfWork, Where} from '../service/storage.js'
import {UnitWrites} from '../service/unit-writes.js'
import {boundDelete, boundInsert, deleteStatement, LARGE_BYTES, onConflict, RecordTexts, rowValues} from './bulk.js'
import {byExternalId, type CheckCache} from './check-cache.js'
import {prepared} from './prepared.js'
import {ENDPOINTS, type LockedEndpoints, lockedEndpoints, PgReader} from './reader.js'
import {text, untext} from './text.js'
import {keptPush, type KeptPush} from './kept-push.js'
import {literal} from './literal.js'
import {COLUMNS} from './schema.js'
import {saveSnapshot} from './snapshots.js'
import {UnitSql} from './unit-sql.js'

/** The advisory lock of an account's records: shared by the units that write them, alone for a save or restore. */
const accountLock = (accountId: string) => `hashtextextended(${literal(`account-records:${text(accountId)}`)}, 0)`

const CHECK_BY_EXTERNAL_ID = prepared(
  'tp_check_by_external_id',
  'SELECT doc FROM checks WHERE account_id = $1::text AND external_id = $2::text FOR UPDATE',
)

/** A kept check's lock and its stored text, which is the text the check was written as when this instance wrote it. */
const CHECK_TEXT_BY_EXTERNAL_ID = prepared(
  'tp_check_text_by_external_id',
  'SELECT doc::text AS text FROM checks WHERE account_id = $1::text AND external_id = $2::text FOR UPDATE',
)

/**
 * A kept check's lock and comparison in the database, for the unit's first query: a check changed since it
 * was kept fails the unit as a serialization failure, and it runs again (docs/postgres.md, "Reads while alone").
 */
const KEPT_CHECK = prepared('tp_kept_check', 'SELECT tablepay_kept_check($1::text, $2::text, $3::text)')

/** One unit of work: one transaction; its writes are collected and sent together with its COMMIT. */
export class PgUnit extends PgReader implements UnitOfWork {
  readonly #writes = new UnitWrites()
  readonly #sql: UnitSql

  /** `checks`: the storage's, while this instance is alone (src/postgres/check-cache.ts). */
  constructor(
    client: pg.PoolClient,
    private readonly checks?: CheckCache,
  ) {
    const sql = new UnitSql(client)
    super(sql, true)
    this.#sql = sql
  }

  /** `EXECUTE` of a prepared statement (`prepared`), for the notice `commit` sends. */
  execute(name: string, values: readonly unknown[]): string {
    return this.#sql.execute(name, values)
  }

  /** A query that prepared statements failed: the connection is released as broken (src/postgres/prepared.ts). */
  get spoiled(): boolean {
    return this.#sql.prepared.spoiled
  }

  /** Whether the transaction was opened: a unit that sent nothing has nothing to commit or roll back. */
  get begun(): boolean {
    return this.#sql.begun
  }

  /**
   * A check by its caller's id (a push), and with it, in the same round trip, the account's webhook
   * endpoints, which the push lists if it changes the check: a changing push waits for the database twice
   * (docs/postgres.md, "The round trips of a push"), locked as `list` locks them. While this instance is
   * alone, a check it keeps is given at once, and locked and read only if the unit goes on to send
   * anything: a push that changes nothing sends nothing ("Reads while alone"); of an account without
   * endpoints, it is locked and compared in the database with the unit's first query (`KEPT_CHECK`), or
   * by the one statement of its push (src/postgres/kept-push.ts).
   */
  override async checkByExternalId(accountId: string, externalId: string): Promise<CheckRecord | undefined> {
    if (this.begun) return super.checkByExternalId(accountId, externalId)
    this.writesTo(accountId)
    const lookup = byExternalId(accountId, externalId)
    const kept = this.checks?.kept(lookup)
    if (kept) this.given.push(['checks', kept.id, null])
    if (kept && this.checks!.bare(accountId)) {
      // nothing to read with it: its lock and comparison go with the unit's first query, its writes if any
      this.#endpoints = {accountId, records: []}
      this.#kept = {accountId, check: kept}
      this.#sql.lead += `${this.#sql.execute(KEPT_CHECK, [text(accountId), text(externalId), this.checks!.textOf(kept)])}; `
      return kept
    }
    if (kept) this.#sql.before = () => this.#lockCheck(accountId, externalId, kept)
    return (
      kept ??
      this.checks?.keep(lookup, () => this.#lockCheck(accountId, externalId)) ??
      this.#lockCheck(accountId, externalId)
    )
  }

  /**
   * Locks and reads the check and the endpoints (none for an account kept as having none: "Reads while
   * alone"); a check given from the cache (`kept`) must be as it was, or the unit runs again.
   */
  async #lockCheck(accountId: string, externalId: string, kept?: CheckRecord): Promise<CheckRecord | undefined> {
    // a kept check is compared as text, and not parsed: the same text is the same check (docs/postgres.md)
    const read = kept ? CHECK_TEXT_BY_EXTERNAL_ID : CHECK_BY_EXTERNAL_ID
    const bare = this.checks?.bare(accountId)
    const mark = this.checks?.endpointsMark()
    const statements = [this.#sql.execute(read, [text(accountId), text(externalId)])]
    if (!bare) statements.push(this.#sql.execute(ENDPOINTS, [text(accountId)]))
    const results = await this.#sql.results<{doc?: CheckRecord; text?: string} & LockedEndpoints>(
      statements.join(';\n'),
    )
    const check = results.at(-statements.length)!
    const records = bare ? [] : lockedEndpoints(results.at(-1)!)
    this.#endpoints = {accountId, records}
    if (!bare && records.length === 0 && mark) this.checks!.keepBare(accountId, mark)
    if (!kept) return check.rows[0]?.doc
    // the unit runs again, and drops the kept check first (`given`)
    if (check.rows[0]?.text !== this.checks!.textOf(kept)) throw keptChanged()
    return kept
  }

  /** A kept check of an account without endpoints, given to the unit before it sent anything (`#keptPush`). */
  #kept: {accountId: string; check: CheckRecord} | undefined

  /** The kept checks given to the unit (`checkByExternalId`): a unit that fails, one of them changed perhaps, drops them. */
  readonly given: Change[] = []

  /** The account's endpoints read with the unit's check (`checkByExternalId`), until listed. */
  #endpoints: {accountId: string; records: WebhookEndpointRecord[]} | undefined

  override async list<C extends CollectionName>(
    collection: C,
    accountId: string,
    where?: Where<C>,
  ): Promise<Collections[C][]> {
    // a kept check's lock and read, put off until now, bring the endpoints too
    await this.#sql.settle()
    const known = this.#endpoints
    this.writesTo(accountId)
    if (collection !== 'webhook_endpoints' || where !== undefined || known?.accountId !== accountId)
      return super.list(collection, accountId, where)
    return known.records as Collections[C][]
  }

  /**
   * A unit whose first statement names its account, or that said which it writes, takes the account's lock,
   * shared, with that statement: a save or restore of the account waits for it, and it for them
   * (docs/postgres.md, "Snapshots"). Taken later, once the unit holds row locks a restore waits for, it could
   * deadlock with one.
   */
  writesTo(accountId: string): void {
    if (!this.begun && !this.#sql.lead)
      this.#sql.lead = `SELECT pg_advisory_xact_lock_shared(${accountLock(accountId)}); `
  }

  async lockAccount(accountId: string): Promise<void> {
    await this.#sql.results(`SELECT pg_advisory_xact_lock(${accountLock(accountId)})`)
  }

  /**
   * A transaction-scoped advisory lock on the id, then the read, in one round trip: at READ COMMITTED each
   * statement of the query sees what committed before it began, so the read after the wait sees what the
   * unit that held the lock made. A row lock could not do it: there is no row yet to lock.
   */
  async getExclusive<C extends CollectionName>(collection: C, id: string): Promise<Collections[C] | undefined> {
    const key = literal(`${collection}:${text(id)}`)
    const results = await this.#sql.results<{doc: Collections[C]}>(
      `SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0));
       SELECT doc FROM ${collection} WHERE id = ${literal(text(id))} FOR UPDATE`,
    )
    const doc = results.at(-1)!.rows[0]?.doc
    if (doc === undefined) this.absent.add(`${collection}\u0000${id}`)
    return doc
  }

  put<C extends CollectionName>(collection: C, id: string, record: Collections[C]): void {
    this.#writes.put(collection, id, record)
  }

  delete(collection: CollectionName, id: string, owner?: string): void {
    this.#writes.delete(collection, id, owner)
  }

  saveSnapshot(head: SnapshotHead): Promise<SavedSnapshot> {
    return saveSnapshot(this.sql, head)
  }

  async deleteAll(collection: CollectionName, accountId: string): Promise<number> {
    const changes = this.#writes.open
    const result = await this.sql.query<{id: string}>(
      `SELECT id FROM ${collection} WHERE account_id = $1 ORDER BY seq DESC FOR UPDATE`,
      [text(accountId)],
    )
    for (const {id} of result.rows) changes.push([collection, untext(id), null] as Change)
    return result.rows.length
  }

  /** The text each record was written as, once `commit` has made them. */
  texts: RecordTexts | undefined

  /** Ends the unit: returns its writes (none the second time), and refuses any more. */
  end(): Change[] {
    return this.#writes.end()
  }

  /**
   * Commits the unit: `changes` (each collection's in one statement), then
   * `notice`'s statement (which tells the other instances) and `COMMIT`, as
   * one simple query: one round trip however many collections it writes. A
   * statement that fails skips the rest, the `COMMIT` with them, and the
   * transaction is rolled back as after any failure. A large unit's
   * statements go one by one, their values bound (src/postgres/bulk.ts).
   * Resolves with the `commit` column the notice answers with: the unit's
   * commit number (src/postgres/notice.ts). A kept check's push, alone, is
   * one statement, its own transaction (`#keptPush`).
   */
  async commit(changes: readonly Change[], notice?: Notice): Promise<number | undefined> {
    if (!this.begun && changes.length === 0) return undefined
    const texts = (this.texts = new RecordTexts())
    const writes = this.#writesOf(changes, texts)
    if (texts.length > LARGE_BYTES) return this.#commitLarge(writes, texts, notice)
    const push = this.#keptPush(writes, texts, notice)
    if (push) {
      const {rows} = await this.#sql.client.query<{commit: string}>(keptPush(push))
      if (rows.length === 0) throw keptChanged()
      return Number(rows[0]!.commit)
    }
    const statements = writes.map((write) => this.#statement(write, texts))
    if (notice) statements.push(notice.inline(this))
    const results = await this.#sql.results<{commit?: string}>([...statements, 'COMMIT'].join(';\n'))
    return commitOf(notice && results.at(-2))
  }

  async #commitLarge(
    writes: readonly Write[],
    texts: RecordTexts,
    notice: Notice | undefined,
  ): Promise<number | undefined> {
    await this.#sql.begin()
    for (const write of writes) await this.#sql.query(...bound(write, texts))
    const told = notice && (await this.#sql.query<{commit?: string}>(...notice.bound()))
    await this.#sql.query('COMMIT')
    return commitOf(told)
  }

  /**
   * The unit as one kept push (src/postgres/kept-push.ts), when it is a kept check's push (its check and its
   * events written, nothing else) that notifies nobody and has sent nothing yet.
   */
  #keptPush(writes: readonly Write[], texts: RecordTexts, notice: Notice | undefined): KeptPush | undefined {
    const kept = this.#kept
    if (!kept || this.begun || !notice?.silent) return undefined
    const [check, events, ...more] = writes
    const [checks, eventPuts] = [upserts(check, 'checks'), upserts(events, 'events')]
    if (more.length > 0 || checks?.length !== 1 || checks[0]![1] !== kept.check.id) return undefined
    if (events && !eventPuts) return undefined
    const row = (change: Change) => rowValues(change, texts)
    return {
      accountId: text(kept.accountId),
      kept: this.checks!.textOf(kept.check),
      check: row(checks[0]!),
      events: eventPuts?.map(row) ?? [],
    }
  }

  /** Each collection's deletes, inserts and upserts, the last write of each record winning. */
  #writesOf(changes: readonly Change[], texts: RecordTexts): Write[] {
    // records keep the order they were first written in (their places), but one deleted and then put is
    // deleted and put anew, at its put's place (a restore's order)
    const last = new Map<string, Change>()
    const renewed = new Set<string>()
    for (const change of changes) {
      const key = `${change[0]}\u0000${change[1]}`
      if (change[2] !== null && last.get(key)?.[2] === null && last.delete(key)) renewed.add(key)
      last.set(key, change)
    }
    const byCollection = new Map<CollectionName, CollectionWrites>()
    for (const [key, change] of last) {
      const [collection, id, record] = change
      let writes = byCollection.get(collection)
      if (!writes) byCollection.set(collection, (writes = {deletes: [], renewals: [], inserts: [], upserts: []}))
      if (record === null || renewed.has(key)) (record === null ? writes.deletes : writes.renewals).push(id)
      if (record === null) continue
      texts.of(record)
      // found absent, or deleted before in this unit: nothing holds its id when it is written
      if (this.absent.has(key) || renewed.has(key)) writes.inserts.push(change)
      else writes.upserts.push(change)
    }
    const writes: Write[] = []
    for (const [collection, {deletes, renewals, inserts, upserts}] of byCollection) {
      if (deletes.length > 0) writes.push({collection, ids: deletes, places: true})
      if (renewals.length > 0) writes.push({collection, ids: renewals, places: false})
      if (inserts.length > 0) writes.push({collection, puts: inserts, upsert: false})
      if (upserts.length > 0) writes.push({collection, puts: upserts, upsert: true})
    }
    return writes
  }

  #statement(write: Write, texts: RecordTexts): string {
    if ('ids' in write) return deleteStatement(write.collection, write.ids, write.places)
    return insertStatement(this.#sql, write.collection, write.puts, write.upsert, texts)
  }
}

/** A collection's writes in a unit: records put back after their delete (`renewals`) keep no deleted place. */
type CollectionWrites = {deletes: string[]; renewals: string[]; inserts: Change[]; upserts: Change[]}

/** One statement's writes: a collection's deletes (keeping their places, or not: `deleteStatement`), inserts or upserts. */
type Write =
  | {collection: CollectionName; ids: string[]; places: boolean}
  | {collection: CollectionName; puts: Change[]; upsert: boolean}

/** The puts of `write` when it upserts records of `collection`. */
const upserts = (write: Write | undefined, collection: CollectionName): Change[] | undefined =>
  write && 'puts' in write && write.upsert && write.collection === collection ? write.puts : undefined

/** A write as a statement with its values bound. */
function bound(write: Write, texts: RecordTexts): [string, unknown[]] {
  const {text, values} =
    'ids' in write
      ? boundDelete(write.collection, write.ids, write.places)
      : boundInsert(write.collection, write.puts, texts, write.upsert)
  return [text, values ?? []]
}

/** A kept check found changed in the database: the unit runs again, the kept check dropped (`given`). */
const keptChanged = () => Object.assign(new Error('postgres: a kept check changed'), {code: '40001'})

const commitOf = (result: pg.QueryResult<{commit?: string}> | undefined): number | undefined => {
  const commit = result?.rows[0]?.commit
  return commit === undefined ? undefined : Number(commit)
}

/**
 * The statement that tells the other instances of a unit's changes, and answers with the unit's commit
 * number as `commit` (src/postgres/notice.ts): for the simple query of a unit's COMMIT; or with its values
 * bound, for a large unit.
 */
export interface Notice {
  /** Whether the unit's statement notifies nobody (an instance surely alone): it only draws the commit number. */
  readonly silent: boolean
  /** Whether the unit's keys went through the `changes` table, which the instance trims after such a unit. */
  readonly tabled: boolean
  inline(unit: PgUnit): string
  bound(): [string, unknown[]]
  /** The notification to send once the unit committed as `commit`, if its inline statement sent none. */
  late(commit: number): [string, unknown[]] | undefined
}

/**
 * One statement for all the puts of a collection, in their order (a new record's place follows it): one record's
 * through the connection's prepared statement, several as literal rows. A record the unit found absent is inserted
 * plainly: if another unit made it meanwhile, the unique key refuses it and the unit runs again, seeing it (an
 * `Idempotency-Key` sent twice at once).
 */
function insertStatement(
  sql: UnitSql,
  collection: CollectionName,
  changes: readonly Change[],
  upsert: boolean,
  texts: RecordTexts,
): string {
  const rows = changes.map((change) => rowValues(change, texts))
  const names = ['id', 'account_id', 'doc', ...COLUMNS[collection]]
  const insert = (values: string) =>
    `INSERT INTO ${collection} (${names.join(', ')}) VALUES ${values}${upsert ? onConflict(names) : ''}`
  if (rows.length > 1) return insert(rows.map((values) => `(${values.map(literal).join(', ')})`).join(', '))
  const placeholders = names.map((name, i) => `$${i + 1}::${name === 'doc' ? 'json' : 'text'}`)
  const name = prepared(`tp_${upsert ? 'put' : 'add'}_${collection}`, insert(`(${placeholders.join(', ')})`))
  return sql.execute(name, rows[0]!)
}
