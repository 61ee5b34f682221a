import pg from 'pg'
import {isUnavailable, unavailable} from './errors.js'
import {connecting, Connection, newPool} from './pool.js'
import {named} from './prepared.js'

const ignore = () => {}

/** How often an unreachable database is tried again, in ms. */
const PROBE_EVERY_MS = 1000

/**
 * How often a reachable database is asked for a new connection, in ms: a smart shutdown refuses new ones
 * and waits for the open ones to end, which nothing else would tell (docs/postgres.md).
 */
const WATCH_EVERY_MS = 5000

/**
 * An instance's pool, and what it does when the database cannot be reached
 * (docs/postgres.md, "When the database cannot be reached"): the first
 * statement refused or lost fails it; every connection is let go, and
 * `letGo` lets the owner end its own (the listening one, the session);
 * a new connection is tried every PROBE_EVERY_MS, and the first that opens
 * heals it. While it is well, one is tried every WATCH_EVERY_MS, which is
 * how a smart shutdown is noticed.
 *
 * @example
 * const connections = new Connections(url, 6, 10_000, () => listening?.end())
 * const {rows} = await connections.query('SELECT doc FROM checks WHERE id = $1', ['chk_…'])
 */
export class Connections {
  /** Replaced by a new one whenever the connections fail (`#letGo`). */
  #pool: pg.Pool
  /** Pools let go of that have not begun to end: some of their clients are still out. */
  readonly #letGone = new Set<pg.Pool>()
  /** Pools ending: `close` waits for them. */
  readonly #ends = new Set<Promise<void>>()
  #failure: Error | undefined
  #probe: NodeJS.Timeout | undefined
  #watch: NodeJS.Timeout | undefined
  /** The probe or watch connection being opened: the next waits for its turn, and a stop ends it. */
  #trying: Connection | undefined
  #closed = false

  constructor(
    private readonly url: string,
    private readonly poolSize: number,
    private readonly connectTimeoutMs: number,
    private readonly letGo: () => void,
  ) {
    this.#pool = newPool(url, poolSize, connectTimeoutMs)
  }

  /** The pool that serves now: a failure replaces it. */
  get pool(): pg.Pool {
    return this.#pool
  }

  /** Set from a failure until a connection opens again. */
  get failure(): Error | undefined {
    return this.#failure
  }

  /**
   * A statement outside a unit (a read, a claim, a fault's strike, a note): the database out of reach fails
   * the connections, as in a unit, so that the request is answered 503 `storage_unavailable`.
   */
  async query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    const client = await this.#connect()
    try {
      const result = await client.query<R>(named(text, values))
      client.release()
      return result
    } catch (error) {
      // as the pool's own query does: a client that failed a statement is not handed out again
      client.release(error as Error)
      throw isUnavailable(error) ? this.fail(error) : error
    }
  }

  /** A client for a unit; the failure, if there is one now or once it is handed out. */
  async client(): Promise<pg.PoolClient> {
    if (this.#failure) throw this.#failure
    const client = await this.#connect()
    // handed a client of a pool let go of since: the unit would be answered 503 whatever it did
    if (this.#failure) {
      client.release()
      throw this.#failure
    }
    return client
  }

  /**
   * One of the pool's connections. Any failure to open one fails the connections, a full server's too
   * (`53300`, too many clients): PostgreSQL refuses the new connection, the request that needed it answers
   * 503, and the instance heals once one opens (docs/postgres.md, "Connections").
   */
  async #connect(): Promise<pg.PoolClient> {
    try {
      return await this.#pool.connect()
    } catch (error) {
      throw this.fail(error)
    }
  }

  /** From now on, asks for a new connection every WATCH_EVERY_MS: once the instance has started. */
  watch(): void {
    this.#watch ??= setInterval(() => void this.#tryConnecting(), WATCH_EVERY_MS).unref()
  }

  /**
   * The database could not be reached: answers are 503 until a probe reaches it again. Meanwhile the
   * instance holds no connection to it: a smart shutdown waits for every session to end, and then can.
   */
  fail(error: unknown): Error {
    const failure = unavailable(error, this.#closed)
    if (this.#failure) return failure
    this.#failure = failure
    // stopping: what runs on (a request whose client left, a pool ended since) is answered 503 too, never 500,
    // and nothing heals
    if (this.#closed) return failure
    this.#letGo()
    this.#probe = setInterval(() => void this.#tryConnecting(), PROBE_EVERY_MS).unref()
    return failure
  }

  /**
   * Ends every connection: the owner's now, the pool's once all of its clients are back (an ending pool
   * hands none to the units that wait for one, which would wait out the connect timeout); a new pool
   * serves from here.
   */
  #letGo(): void {
    const pool = this.#pool
    this.#pool = newPool(this.url, this.poolSize, this.connectTimeoutMs)
    this.#letGone.add(pool)
    const endOnceBack = () =>
      setImmediate(() => {
        if (!pool.ending && pool.waitingCount === 0 && pool.idleCount === pool.totalCount) this.#end(pool)
      })
    pool.on('release', endOnceBack).on('remove', endOnceBack)
    endOnceBack()
    this.letGo()
  }

  #end(pool: pg.Pool): void {
    this.#letGone.delete(pool)
    const ended = pool.end().catch(ignore)
    this.#ends.add(ended)
    void ended.then(() => this.#ends.delete(ended))
  }

  /**
   * Opens a new connection, and closes it: one that opens heals a failure; one refused because the database
   * is unreachable, starting or shutting down fails the connections. A new one, not one of the pool's: a
   * smart shutdown lets the open ones go on, and refuses new ones only.
   */
  async #tryConnecting(): Promise<void> {
    if (this.#trying || this.#closed) return
    // a failure that began while this connection opened is not healed by it: it may have been opened just before
    const failed = this.#failure
    const client = (this.#trying = new Connection(connecting(this.url, this.connectTimeoutMs)))
    client.on('error', ignore)
    try {
      await client.connect()
      if (failed && this.#failure === failed && !this.#closed) {
        clearInterval(this.#probe)
        this.#probe = undefined
        this.#failure = undefined
      }
    } catch (error) {
      // the stop ends this connection: that says nothing of the database
      if (isUnavailable(error) && !this.#closed) this.fail(error)
    } finally {
      await client.end().catch(ignore)
      this.#trying = undefined
    }
  }

  /** Stops probing and watching: a failure from now on lets nothing go. The pools serve on until `close`. */
  stop(): void {
    this.#closed = true
    clearInterval(this.#probe)
    clearInterval(this.#watch)
    // through a dead network it would keep the process until its connect timeout
    void this.#trying?.end().catch(ignore)
  }

  /** Stops, and resolves once every pool has ended. */
  async close(): Promise<void> {
    this.stop()
    for (const pool of [this.#pool, ...this.#letGone]) this.#end(pool)
    await Promise.all(this.#ends)
  }
}
