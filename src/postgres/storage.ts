import {randomUUID} from 'node:crypto'
import pg from 'pg'
import type {CheckRecord, CollectionName, Collections} from '../domain/records.js'
import type {Change, Storage, UnitOfWork} from '../service/storage.js'
import {byExternalId, byGuestToken, byId, CheckCache} from './check-cache.js'
import {CommitOrder} from './commit-order.js'
import {Connections} from './connections.js'
import {isLockWait, isRetryable, isUnavailable, startFailure, UnitGaveUp} from './errors.js'
import {PgInstance} from './instance.js'
import {migrate} from './migrations.js'
import {refuseSharedSessions} from './pooler.js'
import {areChanges, areKeys, notice, noteIn, readBack, teller} from './notice.js'
import {PgReader, type Sql} from './reader.js'
import {answersWithin, connecting, Connection, POOL_SIZE, PROBED} from './pool.js'
import {displayUrl} from '../shared/database-url.js'
import {type Scope, scopeOfSession} from './scope.js'
import {trimSideTables} from './side-tables.js'
import {type Notice, PgUnit} from './unit.js'
import {LOCK_TIMEOUT_S, LOCKS_GIVE_UP_S} from './unit-sql.js'
import {Turns} from '../shared/turns.js'

const ignore = () => {}

/** Times a unit runs again after a serialization failure, a deadlock, a lost race on a unique key or a long lock wait. */
const MAX_ATTEMPTS = 20

/** Lock waits (LOCK_TIMEOUT_S) a unit sits through before it answers 503. */
const MAX_LOCK_WAITS = LOCKS_GIVE_UP_S / LOCK_TIMEOUT_S

/** Deleted ids whose places a table remembers, as the memory store does (docs/api.md, "Lists"). */
const DELETED_KEPT = 10_000

/** How often the side tables (deleted places, large changes) are trimmed, in ms. */
const TRIM_EVERY_MS = 10_000

/** How long a connection may take to open before the database counts as unreachable, in ms. */
const CONNECT_TIMEOUT_MS = 10_000

/** How often a lost listening connection is opened again, in ms. */
const LISTEN_AGAIN_MS = 1000

export interface PgStorageOptions {
  /** `postgres://user:password@host:port/database` */
  url: string
  /** Connections in the pool (default 6: `POOL_SIZE`). */
  poolSize?: number
  /** How long opening a connection may take before the database counts as unreachable (default 10 s). */
  connectTimeoutMs?: number
  /** Deleted ids whose places each collection remembers for list cursors (default 10,000). */
  deletedKept?: number
}

/** A `subscribe`r, and the collections whose other instances' records it needs (all without `only`). */
interface Listener {
  listener: (changes: readonly Change[], remote?: boolean) => void
  only?: readonly CollectionName[]
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
  /** This instance as its notices tell it (src/postgres/notice.ts): to tell its own notifications from the others'. */
  readonly #teller = teller(randomUUID())
  /** Its sandbox's channels and life locks (src/postgres/scope.ts), read as it starts. */
  #scope!: Scope
  /** The pool, and the failure and healing when the database cannot be reached (connections.ts). */
  readonly #connections: Connections
  readonly #url: string
  #listeners: Listener[] = []
  /** This instance among the others: delivery claims, notes (docs/postgres.md, "Delivery across instances"). */
  shared: PgInstance | undefined
  #listen: pg.Client | undefined
  /** The listening connection being opened: a stop ends it, as a database that answers nothing would hold it. */
  #opening: pg.Client | undefined
  #relisten: NodeJS.Timeout | undefined
  /** Notifications are read one after the other, so the other instances' changes reach listeners in commit order. */
  readonly #remote = new Turns()
  #lastTrim = 0
  #closed = false
  /**
   * API keys read outside a unit, by key: every request reads its own, and keys hardly ever change. A
   * change to one, here or through another instance, drops it; so does a lost listening connection,
   * which may have missed such a change. Only keys found are kept.
   */
  readonly #keys = new Map<string, Collections['api_keys']>()
  /** Moves on at each such drop: a read that began before one does not keep what it read. */
  #keysSeen = 0
  /** Each record's change passed on last, here or from another instance: changes reach listeners in commit order. */
  readonly #order = new CommitOrder()
  /** Checks read outside a unit, while this instance is surely alone, hears the others and reaches its database. */
  readonly #checks = new CheckCache(() => (this.failure || !this.#listen ? undefined : this.shared?.aloneStretch))

  private constructor(
    url: string,
    poolSize: number,
    private readonly connectTimeoutMs: number,
    private readonly deletedKept: number,
  ) {
    const self: {storage?: PgStorage} = {}
    super({query: (text, values) => self.storage!.#connections.query(text, values)} as Sql, false)
    self.storage = this
    this.#url = url
    this.#connections = new Connections(url, poolSize, connectTimeoutMs, {
      letGo: () => {
        for (const listening of [this.#listen, this.#opening]) void listening?.end().catch(ignore)
        this.shared?.letGo()
      },
      // the listening connection only listens: a statement on it waits for nothing but the database; while it
      // opens again, the session (which may wait for the clock's lock: then it reads as silent)
      answers: (ms) =>
        this.#listen ? answersWithin(this.#listen, ms) : (this.shared?.answers(ms) ?? Promise.resolve(false)),
    })
  }

  /** Connects, listens for the others' changes, refuses a pooler that lends sessions away, migrates the schema. */
  static async open({
    url,
    poolSize = POOL_SIZE,
    connectTimeoutMs = CONNECT_TIMEOUT_MS,
    deletedKept = DELETED_KEPT,
  }: PgStorageOptions): Promise<PgStorage> {
    const storage = new PgStorage(url, poolSize, connectTimeoutMs, deletedKept)
    // from the first statement: a database that stops answering mid-start fails the start, as it fails a running
    // instance, instead of holding it (docs/postgres.md, "When the database cannot be reached")
    storage.#connections.watch()
    try {
      await storage.#startListening(true)
      await migrate(storage.#connections.pool)
      // known before its session opens: a database found silent meanwhile ends that session too (`letGo`)
      storage.shared = new PgInstance(url, storage.sql, storage.#scope, connectTimeoutMs)
      await storage.shared.start()
    } catch (error) {
      // found silent, the start failed on the connection it cut, which says less than the silence
      const failure = storage.#connections.silent ? storage.failure : error
      await storage.close()
      throw startFailure(url, failure)
    }
    return storage
  }

  async unit<T>(work: (tx: UnitOfWork) => Promise<T>, durable?: (changes: readonly Change[]) => void): Promise<T> {
    let lockWaits = 0
    for (let attempt = 1; ; attempt++) {
      const client = await this.#connections.client()
      const tx = new PgUnit(client, this.#checks)
      const alone = this.#checks.mark()
      let value: T
      let changes: Change[] = []
      let commit: number | undefined
      let told: Notice | undefined
      // surely alone as it commits, the unit notifies nobody (src/postgres/notice.ts)
      let quiet: number | undefined
      try {
        value = await work(tx)
        changes = tx.end()
        quiet = this.#checks.mark()
        told = changes.length > 0 ? notice(this.#teller, this.#scope.changes, changes, quiet !== undefined) : undefined
        commit = await tx.commit(changes, told)
      } catch (error) {
        tx.end()
        // a COMMIT whose answer was lost may have committed; a kept check given to the unit may have changed
        this.#checks.forget([...changes, ...tx.given])
        let broken = isUnavailable(error) ? (error as Error) : undefined
        if (!broken && tx.begun) await client.query('ROLLBACK').catch((rollback: Error) => (broken = rollback))
        client.release(broken ?? tx.spoiled)
        if (broken) throw this.#connections.fail(broken)
        if (!isRetryable(error)) throw error
        if (isLockWait(error)) lockWaits++
        if (attempt >= MAX_ATTEMPTS || lockWaits >= MAX_LOCK_WAITS)
          throw new UnitGaveUp(error, lockWaits * LOCK_TIMEOUT_S)
        // a short random wait lets the unit that won go first
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 2 * attempt))
        continue
      }
      client.release()
      // committed without notifying, alone, while another instance may have started: it hears the change now
      const late = commit !== undefined && quiet !== this.#checks.mark() ? told?.late(commit) : undefined
      if (late) this.#connections.query(...late).catch(ignore)
      if (changes.length > 0) {
        this.#checks.forget(changes)
        const fresh = this.#order.fresh(changes, commit)
        if (commit !== undefined) this.#checks.remember(fresh, alone, tx.texts)
        if (fresh.length > 0) {
          durable?.(fresh)
          this.#publish(fresh)
        }
        this.#trimSoon(changes, told)
      }
      return value
    }
  }

  override checkByExternalId(accountId: string, externalId: string): Promise<CheckRecord | undefined> {
    return this.#checks.read(byExternalId(accountId, externalId), () => super.checkByExternalId(accountId, externalId))
  }

  override checkByGuestToken(token: string): Promise<CheckRecord | undefined> {
    return this.#checks.read(byGuestToken(token), () => super.checkByGuestToken(token))
  }

  override async get<C extends CollectionName>(collection: C, id: string): Promise<Collections[C] | undefined> {
    if (collection === 'checks')
      return this.#checks.read(byId(id), () => super.get('checks', id)) as Promise<Collections[C]>
    if (collection !== 'api_keys') return super.get(collection, id)
    const known = this.#keys.get(id)
    if (known) return known as Collections[C]
    const seen = this.#keysSeen
    const record = await super.get(collection, id)
    if (record && this.#listen && seen === this.#keysSeen) this.#keys.set(id, record as Collections['api_keys'])
    return record
  }

  #publish(changes: readonly Change[], remote = false): void {
    for (const [collection, id] of changes) {
      if (collection !== 'api_keys') continue
      this.#keys.delete(id)
      this.#keysSeen++
    }
    for (const {listener} of this.#listeners) {
      try {
        listener(changes, remote)
      } catch (error) {
        console.error('[tablepay] storage listener failed', error)
      }
    }
  }

  /** Opens the listening connection; at `start`, first reads the sandbox's scope and refuses a pooler (pooler.ts). */
  async #startListening(start = false): Promise<void> {
    const client = (this.#opening = new Connection(connecting(this.#url, this.connectTimeoutMs)))
    const lost = () => {
      if (this.#listen !== client) return
      this.#listen = undefined
      this.#keys.clear()
      this.#keysSeen++
      this.shared?.doubt()
      void client.end().catch(() => {})
      this.#listenLater()
    }
    client.on('error', lost)
    client.on('end', lost)
    client.on('notification', ({channel, payload}) => {
      if (payload === undefined) return
      if (channel === this.#scope.notes) this.shared?.receive(payload)
      if (channel === this.#scope.changes) void this.#remote.run(() => this.#receive(payload)).catch(() => {})
    })
    try {
      await client.connect()
      await client.query(PROBED).catch(ignore)
      if (start) {
        this.#scope = await scopeOfSession(client)
        await refuseSharedSessions(client, this.#connections.pool)
      }
      // one listening connection for both channels: each notification wakes every listening connection
      await client.query(`LISTEN ${this.#scope.changes}; LISTEN ${this.#scope.notes}`)
    } catch (error) {
      await client.end().catch(() => {})
      throw error
    } finally {
      if (this.#opening === client) this.#opening = undefined
    }
    if (this.#closed) await client.end()
    else {
      this.#listen = client
      this.shared?.heardAgain()
    }
  }

  /** Listens again in a moment, until it can: the other instances' changes made meanwhile reach no live stream. */
  #listenLater(): void {
    if (this.#closed || this.#relisten) return
    this.#relisten = setTimeout(() => {
      this.#relisten = undefined
      this.#startListening().catch(() => this.#listenLater())
    }, LISTEN_AGAIN_MS).unref()
  }

  async #receive(payload: string): Promise<void> {
    // this instance hears its own notifications too: told apart by their start, they are not parsed
    if (payload.startsWith(this.#teller.ownNotes)) return
    const note = noteIn(payload)
    if (!note || note.from === this.#teller.instance) return
    // an instance that said no hello (an earlier version's, or one that started while this one's session was lost)
    this.shared?.doubt()
    let keys = note.changed
    if (keys === undefined && note.seq !== undefined) {
      const result = await this.#connections.query<{changes: unknown}>('SELECT changes FROM changes WHERE seq = $1', [
        note.seq,
      ])
      const stored = result.rows[0]?.changes
      if (note.keys) keys = areKeys(stored) ? stored : undefined
      else note.changes = areChanges(stored) ? stored : undefined
    }
    // an instance of an earlier version sends the records themselves
    if (note.changes) {
      const fresh = this.#order.fresh(note.changes, note.commit)
      if (fresh.length > 0) this.#publish(fresh, true)
    }
    if (!keys) return
    const wanted = this.#wanted()
    const needed = wanted ? keys.filter(([collection]) => wanted.has(collection)) : keys
    if (needed.length === 0) return
    const fresh = this.#order.fresh(await readBack(needed, this.sql), note.commit)
    if (fresh.length > 0) this.#publish(fresh, true)
  }

  /**
   * The collections whose records the listeners need of the other instances' changes; undefined for all of
   * them, while a live stream follows (docs/postgres.md, "Changes reach the listeners in commit order").
   */
  #wanted(): Set<CollectionName> | undefined {
    const wanted = new Set<CollectionName>(['api_keys'])
    for (const {only} of this.#listeners) {
      if (!only) return undefined
      for (const collection of only) wanted.add(collection)
    }
    return wanted
  }

  /** Trims the side tables now and then, after a unit that deleted or told its changes through the table. */
  #trimSoon(changes: readonly Change[], told: Notice | undefined): void {
    const now = Date.now()
    const grew = told?.tabled || changes.some((change) => change[2] === null)
    if (now - this.#lastTrim < TRIM_EVERY_MS || !grew) return
    this.#lastTrim = now
    trimSideTables(this.sql, this.deletedKept).catch(ignore)
  }

  settled(): Promise<void> {
    // a unit resolves only once its COMMIT has: what was acknowledged is durable already
    return this.failure ? Promise.reject(this.failure) : Promise.resolve()
  }

  /** The sandbox it serves: the database, as it may be shown (no password), and the schema of its tables. */
  get sandbox(): {database: string; schema: string} {
    return {database: displayUrl(this.#url), schema: this.#scope.schema}
  }

  get failure(): Error | undefined {
    return this.#connections.failure
  }

  subscribe(listener: Listener['listener'], only?: readonly CollectionName[]): () => void {
    const entry: Listener = {listener, only}
    this.#listeners.push(entry)
    return () => (this.#listeners = this.#listeners.filter((l) => l !== entry))
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    this.#connections.stop()
    clearTimeout(this.#relisten)
    const listen = this.#listen
    this.#listen = undefined
    await Promise.all([listen?.end(), this.#opening?.end()].map((ended) => ended?.catch(ignore)))
    await this.#remote.ended()
    await this.shared?.close()
    await this.#connections.close()
  }
}
