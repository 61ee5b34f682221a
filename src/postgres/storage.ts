import {randomUUID} from 'node:crypto'
import pg from 'pg'
import type {CheckRecord, CollectionName, Collections} from '../domain/records.js'
import type {Change, PageOf, PageQuery, Reader, Storage, UnitOfWork, Where} from '../service/storage.js'
import {unavailable, isUnavailable, isRetryable} from './errors.js'
import {displayUrl} from '../shared/database-url.js'
import {migrate} from './migrations.js'
import {COLUMNS} from './schema.js'

type Row = Record<string, unknown>

/** The channel every instance of one database listens on for the others' changes. */
const CHANNEL = 'tablepay_changes'

/** A notification's payload is at most 8000 bytes: larger changes go through the `changes` table. */
const NOTIFY_BYTES = 7000

/** Times a unit runs again after a serialization failure, a deadlock or a lost race on a unique key. */
const MAX_ATTEMPTS = 20

/**
 * Each unit's transaction. A lock wait that lasts (two units that shared a
 * lock and now both want it alone) fails with 55P03 and the unit runs again,
 * rather than waiting on PostgreSQL's deadlock detection.
 */
const BEGIN = "BEGIN; SET LOCAL lock_timeout = '5s'"

/** Deleted ids whose places a table remembers, as the memory store does (docs/api.md, "Lists"). */
const DELETED_KEPT = 10_000

/** How often the side tables (deleted places, large changes) are trimmed, in ms. */
const TRIM_EVERY_MS = 10_000

/** How long a connection may take to open before the database counts as unreachable, in ms. */
const CONNECT_TIMEOUT_MS = 10_000

/** How often an unreachable database is tried again, in ms. */
const PROBE_EVERY_MS = 1000

const FIELD = /^[a-z_]+$/

/**
 * Collections whose listed records a unit may write back: a fan-out draws
 * chaos on the endpoints it lists, retention deletes the deliveries it
 * lists. Their lists are locked FOR UPDATE from the start: two units that
 * both held a shared lock and then both wanted it alone would deadlock, over
 * and over under load (docs/postgres.md).
 */
const WRITTEN_BACK = new Set<CollectionName>(['webhook_endpoints', 'deliveries'])

/**
 * Text as a text column keeps it: PostgreSQL's text holds no NUL, which ids
 * may contain (an idempotency key's id joins account, scope and key with
 * one), so NUL is written `\0` and a backslash `\\`. Records keep their
 * text untouched in their json column.
 */
function text(value: string): string {
  const nul = String.fromCharCode(0)
  return value.includes(nul) || value.includes('\\') ? value.replaceAll('\\', '\\\\').replaceAll(nul, '\\0') : value
}

/** The text `text()` was given. */
function untext(value: string): string {
  return value.includes('\\')
    ? value.replace(/\\(\\|0)/g, (_, c: string) => (c === '0' ? String.fromCharCode(0) : '\\'))
    : value
}

function matches(record: unknown, where: Row | undefined): boolean {
  if (where === undefined) return true
  for (const key in where) if (where[key] !== undefined && (record as Row)[key] !== where[key]) return false
  return true
}

/** `AND …` for each field of `where` given, its values pushed onto `values`. */
function filters(collection: CollectionName, where: Row | undefined, values: unknown[]): string {
  let sql = ''
  for (const field in where) {
    const value = where[field]
    if (value === undefined) continue
    if (!FIELD.test(field)) throw new Error(`postgres: cannot filter on "${field}"`)
    if (COLUMNS[collection].includes(field)) {
      values.push(text(String(value)))
      sql += ` AND ${field} = $${values.length}`
    } else if (typeof value === 'string') {
      values.push(value)
      sql += ` AND doc->>'${field}' = $${values.length}`
    } else {
      // the stored text is JSON.stringify's, so a number or boolean reads back as the same text
      values.push(JSON.stringify(value))
      sql += ` AND (doc->'${field}')::text = $${values.length}`
    }
  }
  return sql
}

/** What reads run their statements on: a unit's connection, or the pool. */
interface Sql {
  query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>
}

const docs = <T>(result: pg.QueryResult<{doc: T}>): T[] => result.rows.map((row) => row.doc)

/**
 * The reads of the storage interface over one connection (a unit's) or the
 * pool (reads outside a unit). In a unit, a record read by its key is locked
 * (`FOR UPDATE`) and records listed are shared-locked (`FOR SHARE`; endpoints and
 * deliveries, which units write back, `FOR UPDATE`) until the
 * unit ends: no other unit can change what this one decides on.
 */
class PgReader implements Reader {
  constructor(
    protected readonly sql: Sql,
    private readonly locked: boolean,
  ) {}

  /** The ids a unit looked up and found absent: writing one is an insert that fails if another unit made it first. */
  protected readonly absent = new Set<string>()

  async get<C extends CollectionName>(collection: C, id: string): Promise<Collections[C] | undefined> {
    const lock = this.locked ? ' FOR UPDATE' : ''
    const result = await this.sql.query<{doc: Collections[C]}>(`SELECT doc FROM ${collection} WHERE id = $1${lock}`, [
      text(id),
    ])
    if (result.rows.length === 0 && this.locked) this.absent.add(`${collection}\u0000${id}`)
    return result.rows[0]?.doc
  }

  async #check(where: string, values: unknown[]): Promise<CheckRecord | undefined> {
    const lock = this.locked ? ' FOR UPDATE' : ''
    const result = await this.sql.query<{doc: CheckRecord}>(`SELECT doc FROM checks WHERE ${where}${lock}`, values)
    return result.rows[0]?.doc
  }

  checkByExternalId(accountId: string, externalId: string): Promise<CheckRecord | undefined> {
    return this.#check('account_id = $1 AND external_id = $2', [text(accountId), text(externalId)])
  }

  checkByGuestToken(token: string): Promise<CheckRecord | undefined> {
    return this.#check('guest_token = $1', [text(token)])
  }

  async list<C extends CollectionName>(collection: C, accountId: string, where?: Where<C>): Promise<Collections[C][]> {
    const values: unknown[] = [text(accountId)]
    const filter = filters(collection, where as Row, values)
    const lock = this.locked ? (WRITTEN_BACK.has(collection) ? ' FOR UPDATE' : ' FOR SHARE') : ''
    const result = await this.sql.query<{doc: Collections[C]}>(
      `SELECT doc FROM ${collection} WHERE account_id = $1${filter} ORDER BY seq${lock}`,
      values,
    )
    return docs(result).filter((record) => matches(record, where as Row))
  }

  async page<C extends CollectionName>(
    collection: C,
    accountId: string,
    {limit, startingAfter, where, oldestFirst = false}: PageQuery<C>,
  ): Promise<PageOf<Collections[C]> | undefined> {
    const values: unknown[] = [text(accountId)]
    let after = ''
    if (startingAfter !== undefined) {
      // the cursor's place: its record's, or the place it had before it was deleted
      const place = await this.sql.query<{seq: string}>(
        `SELECT seq FROM ${collection} WHERE id = $1 AND account_id = $2
         UNION ALL SELECT seq FROM deleted WHERE collection = $3 AND id = $1 LIMIT 1`,
        [text(startingAfter), text(accountId), collection],
      )
      if (place.rows.length === 0) return undefined
      values.push(place.rows[0]!.seq)
      after = ` AND seq ${oldestFirst ? '>' : '<'} $2`
    }
    const filter = filters(collection, where as Row, values)
    values.push(limit + 1)
    const result = await this.sql.query<{doc: Collections[C]}>(
      `SELECT doc FROM ${collection} WHERE account_id = $1${after}${filter}
       ORDER BY seq ${oldestFirst ? 'ASC' : 'DESC'} LIMIT $${values.length}`,
      values,
    )
    const records = docs(result)
    const hasMore = records.length > limit
    return {records: hasMore ? records.slice(0, limit) : records, hasMore}
  }

  async all<C extends CollectionName>(collection: C, where?: Where<C>): Promise<Collections[C][]> {
    const values: unknown[] = []
    const filter = filters(collection, where as Row, values)
    const result = await this.sql.query<{doc: Collections[C]}>(
      `SELECT doc FROM ${collection} WHERE true${filter} ORDER BY seq`,
      values,
    )
    return docs(result).filter((record) => matches(record, where as Row))
  }

  async count(collection: CollectionName, accountId: string): Promise<number> {
    const result = await this.sql.query<{n: number}>(
      `SELECT count(*)::integer AS n FROM ${collection} WHERE account_id = $1`,
      [text(accountId)],
    )
    return result.rows[0]!.n
  }
}

/** One unit of work: one transaction; its writes are collected and applied together when it ends. */
class PgUnit extends PgReader implements UnitOfWork {
  #changes: Change[] | undefined = []

  constructor(client: pg.PoolClient) {
    super(client, true)
  }

  #open(): Change[] {
    if (!this.#changes) throw new Error('storage: a write outside a unit of work')
    return this.#changes
  }

  put<C extends CollectionName>(collection: C, id: string, record: Collections[C]): void {
    this.#open().push([collection, id, record] as Change)
  }

  delete(collection: CollectionName, id: string): void {
    this.#open().push([collection, id, null] as Change)
  }

  async deleteAll(collection: CollectionName, accountId: string): Promise<number> {
    const changes = this.#open()
    const result = await this.sql.query<{id: string}>(
      `SELECT id FROM ${collection} WHERE account_id = $1 ORDER BY seq DESC FOR UPDATE`,
      [text(accountId)],
    )
    for (const {id} of result.rows) changes.push([collection, untext(id), null] as Change)
    return result.rows.length
  }

  /** Ends the unit: returns its writes (none the second time), and refuses any more. */
  end(): Change[] {
    const changes = this.#changes ?? []
    this.#changes = undefined
    return changes
  }

  /** Writes `changes` in this unit's transaction, each collection's in one statement. */
  async apply(changes: readonly Change[]): Promise<void> {
    // the last write of each record wins; records keep the order they were first written in (their places)
    const last = new Map<string, Change>()
    for (const change of changes) last.set(`${change[0]}\u0000${change[1]}`, change)
    const byCollection = new Map<CollectionName, {deletes: string[]; inserts: Change[]; upserts: Change[]}>()
    for (const [key, change] of last) {
      const [collection, id, record] = change
      let writes = byCollection.get(collection)
      if (!writes) byCollection.set(collection, (writes = {deletes: [], inserts: [], upserts: []}))
      if (record === null) writes.deletes.push(id)
      else if (this.absent.has(key)) writes.inserts.push(change)
      else writes.upserts.push(change)
    }
    for (const [collection, {deletes, inserts, upserts}] of byCollection) {
      if (deletes.length > 0) await this.#delete(collection, deletes)
      if (inserts.length > 0) await this.#insert(collection, inserts, false)
      if (upserts.length > 0) await this.#insert(collection, upserts, true)
    }
  }

  async #delete(collection: CollectionName, ids: string[]): Promise<void> {
    await this.sql.query(
      `WITH gone AS (DELETE FROM ${collection} WHERE id = ANY($1::text[]) RETURNING id, seq)
       INSERT INTO deleted (collection, id, seq) SELECT $2, id, seq FROM gone
       ON CONFLICT (collection, id) DO UPDATE SET seq = excluded.seq`,
      [ids.map(text), collection],
    )
  }

  /**
   * One statement for all the puts of a collection, in their order (a new
   * record's place follows it). A record the unit found absent is inserted
   * plainly: if another unit made it meanwhile, the unique key refuses it and
   * the unit runs again, seeing it (an `Idempotency-Key` sent twice at once).
   */
  async #insert(collection: CollectionName, changes: Change[], upsert: boolean): Promise<void> {
    const columns = COLUMNS[collection]
    const arrays: unknown[][] = [[], [], [], ...columns.map(() => [])]
    for (const [, id, record] of changes) {
      const row = record as Row
      arrays[0]!.push(text(id))
      arrays[1]!.push(text(row.account_id as string))
      arrays[2]!.push(JSON.stringify(row))
      columns.forEach((column, i) => {
        const value = row[column]
        arrays[3 + i]!.push(value === undefined || value === null ? null : text(String(value)))
      })
    }
    const names = ['id', 'account_id', 'doc', ...columns]
    const types = ['text', 'text', 'json', ...columns.map(() => 'text')]
    const set = names
      .slice(1)
      .map((name) => `${name} = excluded.${name}`)
      .join(', ')
    await this.sql.query(
      `INSERT INTO ${collection} (${names.join(', ')})
       SELECT * FROM unnest(${types.map((type, i) => `$${i + 1}::${type}[]`).join(', ')})
       ${upsert ? `ON CONFLICT (id) DO UPDATE SET ${set}` : ''}`,
      arrays,
    )
  }
}

export interface PgStorageOptions {
  /** `postgres://user:password@host:port/database` */
  url: string
  /** Connections in the pool (default 10). */
  poolSize?: number
  /** How long opening a connection may take before the database counts as unreachable (default 10 s). */
  connectTimeoutMs?: number
  /** Deleted ids whose places each collection remembers for list cursors (default 10,000). */
  deletedKept?: number
}

/**
 * The storage interface over PostgreSQL (docs/postgres.md). Each unit of
 * work is one transaction: what it reads by key is locked, its writes go in
 * at the end, then COMMIT; a unit that lost a race (serialization failure,
 * deadlock, a unique key another instance took first) runs again. Several
 * instances share one database; each hears the others' changes through
 * LISTEN/NOTIFY, for its live streams.
 *
 * @example
 * const storage = await PgStorage.open({url: 'postgres://tablepay@127.0.0.1/tablepay'})
 * const service = createServiceLayer({storage, baseUrl, now: wallClockIso, clock, strictUrls: false})
 * await storage.close()
 */
export class PgStorage extends PgReader implements Storage {
  /** This instance, to tell its own notifications from the others'. */
  readonly #instance = randomUUID()
  readonly #pool: pg.Pool
  readonly #url: string
  #listeners: ((changes: readonly Change[]) => void)[] = []
  #failure: Error | undefined
  #probe: NodeJS.Timeout | undefined
  #listen: pg.Client | undefined
  #relisten: NodeJS.Timeout | undefined
  /** Notifications are read one after the other, so the other instances' changes reach listeners in commit order. */
  #remote: Promise<void> = Promise.resolve()
  #lastTrim = 0
  #closed = false

  private constructor(
    pool: pg.Pool,
    url: string,
    private readonly connectTimeoutMs: number,
    private readonly deletedKept: number,
  ) {
    const self: {storage?: PgStorage} = {}
    // a read outside a unit that finds the database gone makes the storage fail, as a unit does
    super(
      {
        query: <R extends pg.QueryResultRow>(text: string, values?: unknown[]) =>
          pool.query<R>(text, values).catch((error: unknown) => {
            throw isUnavailable(error) ? self.storage!.#fail(error) : error
          }),
      },
      false,
    )
    self.storage = this
    this.#pool = pool
    this.#url = url
  }

  /** Connects, migrates the schema (once, under an advisory lock) and listens for the other instances' changes. */
  static async open({
    url,
    poolSize = 10,
    connectTimeoutMs = CONNECT_TIMEOUT_MS,
    deletedKept = DELETED_KEPT,
  }: PgStorageOptions): Promise<PgStorage> {
    // a database behind a dead network answers nothing: give up on connecting after a while, and notice dead peers
    const pool = new pg.Pool({
      connectionString: url,
      max: poolSize,
      connectionTimeoutMillis: connectTimeoutMs,
      keepAlive: true,
    })
    const storage = new PgStorage(pool, url, connectTimeoutMs, deletedKept)
    // an idle connection the server closed: the pool drops it and connects anew when next needed
    pool.on('error', () => {})
    try {
      await migrate(pool)
      await storage.#startListening()
    } catch (error) {
      await storage.close()
      if (!isUnavailable(error)) throw error
      const reason = (error as {code?: string}).code ?? (error as Error).message
      throw new Error(
        `postgres: cannot connect to ${displayUrl(url)} (${reason}); is the database up and the URL right?`,
        {
          cause: error,
        },
      )
    }
    return storage
  }

  async unit<T>(work: (tx: UnitOfWork) => Promise<T>, durable?: (changes: readonly Change[]) => void): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      if (this.#failure) throw this.#failure
      let client: pg.PoolClient
      try {
        client = await this.#pool.connect()
      } catch (error) {
        throw this.#fail(error)
      }
      const tx = new PgUnit(client)
      let value: T
      let changes: Change[]
      try {
        await client.query(BEGIN)
        value = await work(tx)
        changes = tx.end()
        if (changes.length > 0) {
          await tx.apply(changes)
          await this.#notify(client, changes)
        }
        await client.query('COMMIT')
      } catch (error) {
        tx.end()
        let broken = isUnavailable(error) ? (error as Error) : undefined
        if (!broken) await client.query('ROLLBACK').catch((rollback: Error) => (broken = rollback))
        client.release(broken)
        if (broken) throw this.#fail(broken)
        if (isRetryable(error) && attempt < MAX_ATTEMPTS) {
          // a short random wait lets the unit that won go first
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 2 * attempt))
          continue
        }
        throw error
      }
      client.release()
      if (changes.length > 0) {
        durable?.(changes)
        this.#publish(changes)
        this.#trimSoon(changes)
      }
      return value
    }
  }

  /**
   * Tells the other instances of this unit's changes, when it commits:
   * inline when they fit in a notification, else through the `changes` table.
   */
  async #notify(client: pg.PoolClient, changes: readonly Change[]): Promise<void> {
    const inline = JSON.stringify({from: this.#instance, changes})
    if (Buffer.byteLength(inline) <= NOTIFY_BYTES) {
      await client.query('SELECT pg_notify($1, $2)', [CHANNEL, inline])
      return
    }
    await client.query(
      `WITH row AS (INSERT INTO changes (changes) VALUES ($1) RETURNING seq)
       SELECT pg_notify($2, json_build_object('from', $3::text, 'seq', seq)::text) FROM row`,
      [JSON.stringify(changes), CHANNEL, this.#instance],
    )
  }

  #publish(changes: readonly Change[]): void {
    for (const listener of this.#listeners) {
      try {
        listener(changes)
      } catch (error) {
        console.error('[tablepay] storage listener failed', error)
      }
    }
  }

  async #startListening(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.#url,
      connectionTimeoutMillis: this.connectTimeoutMs,
      keepAlive: true,
    })
    const lost = () => {
      if (this.#listen !== client) return
      this.#listen = undefined
      void client.end().catch(() => {})
      this.#listenLater()
    }
    client.on('error', lost)
    client.on('end', lost)
    client.on('notification', (message) => {
      if (message.channel !== CHANNEL || message.payload === undefined) return
      const payload = message.payload
      this.#remote = this.#remote.then(() => this.#receive(payload)).catch(() => {})
    })
    try {
      await client.connect()
      await client.query(`LISTEN ${CHANNEL}`)
    } catch (error) {
      await client.end().catch(() => {})
      throw error
    }
    if (this.#closed) await client.end()
    else this.#listen = client
  }

  /** Listens again in a moment, until it can: the other instances' changes made meanwhile reach no live stream. */
  #listenLater(): void {
    if (this.#closed || this.#relisten) return
    this.#relisten = setTimeout(() => {
      this.#relisten = undefined
      this.#startListening().catch(() => this.#listenLater())
    }, PROBE_EVERY_MS).unref()
  }

  async #receive(payload: string): Promise<void> {
    const note = JSON.parse(payload) as {from: string; changes?: Change[]; seq?: number}
    if (note.from === this.#instance) return
    let changes = note.changes
    if (changes === undefined) {
      const result = await this.#pool.query<{changes: Change[]}>('SELECT changes FROM changes WHERE seq = $1', [
        note.seq,
      ])
      changes = result.rows[0]?.changes
    }
    if (changes) this.#publish(changes)
  }

  /** Trims the side tables now and then, after a unit that deleted or wrote large changes. */
  #trimSoon(changes: readonly Change[]): void {
    const now = Date.now()
    if (now - this.#lastTrim < TRIM_EVERY_MS || !changes.some((change) => change[2] === null)) return
    this.#lastTrim = now
    void this.#pool
      .query(
        `DELETE FROM deleted d USING (
           SELECT collection, seq FROM (
             SELECT collection, seq, row_number() OVER (PARTITION BY collection ORDER BY seq DESC) AS n FROM deleted
           ) ranked WHERE n = $1
         ) cut WHERE d.collection = cut.collection AND d.seq < cut.seq`,
        [this.deletedKept],
      )
      .then(() => this.#pool.query(`DELETE FROM changes WHERE at < now() - interval '5 minutes'`))
      .catch(() => {})
  }

  /** The database could not be reached: answers are 503 until a probe reaches it again. */
  #fail(error: unknown): Error {
    const failure = unavailable(error)
    if (this.#closed) return failure
    this.#failure ??= failure
    this.#probe ??= setInterval(() => {
      this.#pool.query('SELECT 1').then(
        () => {
          clearInterval(this.#probe)
          this.#probe = undefined
          this.#failure = undefined
        },
        () => {},
      )
    }, PROBE_EVERY_MS).unref()
    return failure
  }

  settled(): Promise<void> {
    // a unit resolves only once its COMMIT has: what was acknowledged is durable already
    return this.#failure ? Promise.reject(this.#failure) : Promise.resolve()
  }

  get failure(): Error | undefined {
    return this.#failure
  }

  subscribe(listener: (changes: readonly Change[]) => void): () => void {
    this.#listeners.push(listener)
    return () => (this.#listeners = this.#listeners.filter((l) => l !== listener))
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    clearInterval(this.#probe)
    clearTimeout(this.#relisten)
    const listen = this.#listen
    this.#listen = undefined
    await listen?.end().catch(() => {})
    await this.#remote
    await this.#pool.end()
  }
}
