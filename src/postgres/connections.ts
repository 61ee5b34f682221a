import pg from 'pg'
import {answersNothing, DatabaseUnavailable, isLockWait, isUnavailable, unavailable, UnitGaveUp} from './errors.js'
import {connecting, Connection, newPool} from './pool.js'
import {named} from './prepared.js'
import {LOCKS_GIVE_UP_S} from './unit-sql.js'

const ignore = () => {}

/** How often an unreachable database is tried again, in ms. */
const PROBE_EVERY_MS = 1000

/**
 * How often a reachable database is asked for a new connection, in ms: a smart shutdown refuses new ones
 * and waits for the open ones to end, and a database that answers nothing (stopped with `kill -STOP`) holds
 * every statement sent to it while TCP keepalives see nothing wrong; nothing else would tell (docs/postgres.md).
 */
const WATCH_EVERY_MS = 5000

/** How long the owner's open connection has to answer before a database that opened no new one is found silent, in ms. */
const ANSWER_WITHIN_MS = 1000

/** What the pool's owner does for it: the connections it opens of its own (its listening connection, its session). */
export interface ConnectionsOwner {
  /** Ends them: the connections failed. */
  letGo(): void
  /** Whether the database answers a statement on one of them open already, within `ms`. */
  answers(ms: number): Promise<boolean>
}

/**
 * An instance's pool, and what it does when the database cannot be reached
 * (docs/postgres.md, "When the database cannot be reached"): the first
 * statement refused or lost fails it; every connection is let go, and
 * the owner ends its own (`ConnectionsOwner`);
 * a new connection is tried every PROBE_EVERY_MS, and the first that opens
 * heals it. While it is well, one is tried every WATCH_EVERY_MS, which is
 * how a smart shutdown is noticed, and a database that answers nothing: one
 * not open within the connect timeout, while the owner's open connection
 * goes unanswered too, drops the pools' connections, failing what waits on
 * them, which would wait for as long as it is silent (`#cut`).
 *
 * @example
 * const connections = new Connections(url, 6, 10_000, {letGo: () => listening?.end(), answers: ping})
 * const {rows} = await connections.query('SELECT doc FROM checks WHERE id = $1', ['chk_…'])
 */
export class Connections {
  /** Replaced by a new one whenever the connections fail (`#letGo`). */
  #pool: pg.Pool
  /** Pools let go of that have not begun to end: some of their clients are still out. */
  readonly #letGone = new Set<pg.Pool>()
  /** Pools ending: `close` waits for them. */
  readonly #ends = new Set<Promise<void>>()
  /** The pools' connections, opening or open, those let go of too: a database that answers nothing holds them (`#cut`). */
  readonly #open = new Set<Connection>()
  /** How each statement waiting for a pool's connection gives up (`#connect`). */
  readonly #waiting = new Set<(failure: Error) => void>()
  #failure: Error | undefined
  /** The owner's look at whether the database answers (`#cutIfSilent`): one at a time. */
  #asking: Promise<boolean> | undefined
  /** Failed, with the owner's connections not let go of yet: a look at them may find the database answering. */
  #owesLetGo = false
  /** The database answered nothing last (`answersNothing`): until a connection opens, nothing is sent to it. */
  #silent = false
  #probe: NodeJS.Timeout | undefined
  #watch: NodeJS.Timeout | undefined
  /** The probe or watch connection being opened: the next waits for its turn, and a stop ends it. */
  #trying: Connection | undefined
  #closed = false

  constructor(
    private readonly url: string,
    private readonly poolSize: number,
    private readonly connectTimeoutMs: number,
    private readonly owner: ConnectionsOwner,
  ) {
    this.#pool = this.#newPool()
  }

  #newPool(): pg.Pool {
    return newPool(this.url, this.poolSize, this.connectTimeoutMs, (connection) => {
      this.#open.add(connection)
      connection.once('end', () => this.#open.delete(connection))
    })
  }

  /** The pool that serves now: a failure replaces it. */
  get pool(): pg.Pool {
    return this.#pool
  }

  /** Whether the database was found to answer nothing (`#cutIfSilent`), until a connection opens again. */
  get silent(): boolean {
    return this.#silent
  }

  /** Set from a failure until a connection opens again. */
  get failure(): Error | undefined {
    return this.#failure
  }

  /**
   * A statement outside a unit (a read, a claim, a fault's strike, a note): the database out of reach fails
   * the connections, as in a unit, so that the request is answered 503 `storage_unavailable`; so is a lock
   * waited for past the pool's lock timeout (pool.ts, PROBED_POOLED), though the connections go on.
   */
  async query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    // to a database found silent, it would open a connection that waits out the connect timeout, and hold a stop
    if (this.#silent) throw this.#failure!
    const client = await this.#connect()
    try {
      const result = await client.query<R>(named(text, values))
      client.release()
      return result
    } catch (error) {
      // as the pool's own query does: a client that failed a statement is not handed out again
      client.release(error as Error)
      if (isLockWait(error)) throw new UnitGaveUp(error, LOCKS_GIVE_UP_S)
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
   * 503, and the instance heals once one opens (docs/postgres.md, "Connections"). A wait for one gives up
   * when the database answers nothing (`#cut`): the connections it waits for would come back, to be opened
   * anew and time out, one pool's worth at a time.
   */
  async #connect(): Promise<pg.PoolClient> {
    const given = this.#pool.connect()
    let cutShort = false
    let giveUp!: (failure: Error) => void
    const cut = new Promise<never>((_, reject) => {
      giveUp = (failure) => {
        cutShort = true
        reject(failure)
      }
      this.#waiting.add(giveUp)
    })
    try {
      return await Promise.race([given, cut])
    } catch (error) {
      // a connection given up on says nothing more: one that fails to open after a heal would cut again
      if (cutShort) {
        // handed out once given up on: back at once
        void given.then((client) => client.release(), ignore)
        throw error
      }
      this.#tried(error)
      throw this.fail(error)
    } finally {
      this.#waiting.delete(giveUp)
    }
  }

  /** From now on, asks for a new connection every WATCH_EVERY_MS: from the instance's start. */
  watch(): void {
    this.#watch ??= setInterval(() => void this.#tryConnecting(), WATCH_EVERY_MS).unref()
  }

  /**
   * The database could not be reached: answers are 503 until a probe reaches it again. Meanwhile the
   * instance holds no connection to it: a smart shutdown waits for every session to end, and then can.
   */
  fail(error: unknown): Error {
    const failure = unavailable(error, this.#closed)
    // stopping: what runs on (a request whose client left, a pool ended since) is answered 503 too, never 500,
    // and nothing heals
    const first = this.#failure === undefined && !this.#closed
    this.#failure ??= failure
    if (first) this.#owesLetGo = true
    if (answersNothing(error)) void this.#cutIfSilent(failure)
    else if (this.#owesLetGo && !this.#closed) this.#letGo()
    if (first) this.#probe = setInterval(() => void this.#tryConnecting(), PROBE_EVERY_MS).unref()
    return failure
  }

  /**
   * A connection that did not open in time, or whose probes went unanswered: the database is silent when the
   * owner's open connection goes unanswered too, and then what waits on it is cut. A new connection is only
   * slow to open (a connection storm, a slow login) while the open ones are answered: the statements under
   * way go on (docs/postgres.md, "When the database cannot be reached"), and so do the owner's connections,
   * which the next look asks again: they are let go of once the database is found silent, or by the next
   * failure of another kind.
   */
  async #cutIfSilent(failure: Error): Promise<void> {
    const failed = this.#failure
    const asking = this.#silent ? undefined : (this.#asking ??= this.owner.answers(ANSWER_WITHIN_MS))
    const answers = asking !== undefined && (await asking)
    if (this.#asking === asking) this.#asking = undefined
    // healed meanwhile, and maybe failed anew: that failure decides for itself
    if (this.#failure !== failed || answers) return
    this.#silent = true
    this.#cut(failure)
    if (this.#owesLetGo && !this.#closed) this.#letGo()
  }

  /**
   * Drops every connection of the pools, failing the statements under way on them, and fails those waiting for
   * one: the database answers nothing, and would hold them, and a stop that waits for them, for as long as it
   * stays silent (docs/postgres.md, "When the database cannot be reached"). Its own connections, the owner ends
   * (`letGo`), and their end drops them (pool.ts, `Connection`). A statement cut may still run once the database
   * answers, as one whose connection was lost.
   */
  #cut(failure: Error): void {
    for (const connection of this.#open) connection.drop()
    for (const giveUp of this.#waiting) giveUp(failure)
  }

  /**
   * Ends every connection: the owner's now, the pool's once all of its clients are back (an ending pool
   * hands none to the units that wait for one, which would wait out the connect timeout); a new pool
   * serves from here.
   */
  #letGo(): void {
    this.#owesLetGo = false
    const pool = this.#pool
    this.#pool = this.#newPool()
    this.#letGone.add(pool)
    const endOnceBack = () =>
      setImmediate(() => {
        if (!pool.ending && pool.waitingCount === 0 && pool.idleCount === pool.totalCount) this.#end(pool)
      })
    pool.on('release', endOnceBack).on('remove', endOnceBack)
    endOnceBack()
    this.owner.letGo()
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
    if (this.#trying) return
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
        this.#silent = false
        this.#owesLetGo = false
      }
    } catch (error) {
      // the stop ends this connection: that says nothing of the database
      if (this.#trying !== client) return
      // while lost, any refusal is what keeps it lost; while it serves, one of a new session only leaves it be
      this.#tried(error, failed)
      if (isUnavailable(error)) this.fail(error)
    } finally {
      await client.end().catch(ignore)
      if (this.#trying === client) this.#trying = undefined
    }
  }

  /**
   * Stops probing: a failure from now on lets nothing go, and nothing heals. The pools serve on until `close`,
   * and the watch with them: a database that answers nothing does not hold the stop (`#cut`).
   */
  stop(): void {
    this.#closed = true
    clearInterval(this.#probe)
  }

  /**
   * A try to open a connection met `error`: while the failure `failed` lasts, what it met is what keeps the
   * database lost now (`since`). Only a try says so: a statement that fails after the database was found
   * silent was cut here (`#cut`), and says nothing of the database (docs/postgres.md, "When the database
   * cannot be reached").
   */
  #tried(error: unknown, failed = this.#failure): void {
    if (failed instanceof DatabaseUnavailable && this.#failure === failed && !this.#closed) failed.since(error)
  }

  /** Stops, and resolves once every pool has ended. */
  async close(): Promise<void> {
    this.stop()
    // found silent: a cut pool opens new connections for the statements that waited for one and gave up, and
    // the database would hold each until the connect timeout
    if (this.#silent) this.#cut(this.#failure!)
    for (const pool of [this.#pool, ...this.#letGone]) this.#end(pool)
    await Promise.all(this.#ends)
    clearInterval(this.#watch)
    // through a dead network it would keep the process until its connect timeout
    const trying = this.#trying
    this.#trying = undefined
    await trying?.end().catch(ignore)
  }
}
