import {randomInt} from 'node:crypto'
import pg from 'pg'
import type {Claim, SharedStorage} from '../service/storage.js'
import {clearFaultsWhenAlone, PgFaults} from './faults.js'
import {atMost} from '../shared/at-most.js'
import {Batches} from '../shared/batches.js'
import {type AskedClaim, claimDeliveries, lifeLockHeld, TAKE_ALIVE} from './leases.js'
import {answersWithin, connecting, Connection, PROBED} from './pool.js'
import {Presence} from './presence.js'
import type {Sql} from './reader.js'
import type {Scope} from './scope.js'

/** A notification's payload is under 8000 bytes: a larger note is not sent. */
const PAYLOAD_BYTES = 7900

/** The advisory lock an instance holds while it starts: it tells whether others are alive before it is. */
const START_LOCK = 0x74707374

const ignore = () => {}

const STOPPED = 'postgres: the instance stopped while its session opened'

/** How often a lost session is tried again, in ms. */
const RECONNECT_MS = 1000

type Listener = (note: unknown) => void

/**
 * This instance among the others of its sandbox (`scope`): a session of its
 * own that holds an advisory lock for the instance's life, its scope's
 * `lifeLock` and its `owner` (so the others can tell it is alive, and take
 * over its leases once it is not); their notes, on the scope's `notes`
 * channel, which the storage's listening connection hears (`receive`); the
 * claims of deliveries (`leases.ts`). Its statements run on the storage's
 * `sql`, so a database out of reach fails the storage.
 *
 * @example
 * const instance = new PgInstance(url, sql, scopeOf('public'), 10_000)
 * await instance.start()
 * const claim = await instance.claim('dlv_…', dueAt, 40_000)
 */
export class PgInstance implements SharedStorage {
  /** The second key of this instance's life lock; leases it takes carry it. */
  readonly owner = randomInt(1, 2 ** 31 - 1)
  /** How this instance's notes begin (`broadcast`). */
  readonly #ownNotes = `{"from":${this.owner},`
  readonly #listeners = new Map<string, Set<Listener>>()
  readonly #reconnectListeners = new Set<() => void>()
  /** The faults of every instance (docs/postgres.md, "Faults across instances"). */
  readonly faults: PgFaults
  /** Which others are alive to hear this one's notes. */
  readonly #presence: Presence
  /** Notes not sent yet: those of one event-loop turn go together, after the ones before them. */
  #outbox: string[] = []
  #sending = false
  /** Resolves once the notes sent so far have gone. */
  #sent: Promise<void> = Promise.resolve()
  #session: pg.Client | undefined
  /** The session being opened: a stop ends it, so that it keeps neither the process nor a connection. */
  #opening: pg.Client | undefined
  #reconnect: NodeJS.Timeout | undefined
  #closed = false

  constructor(
    private readonly url: string,
    private readonly sql: Sql,
    private readonly scope: Scope,
    private readonly connectTimeoutMs: number,
  ) {
    this.faults = new PgFaults(sql)
    this.#presence = new Presence(this.owner, scope.lifeLock, sql, (topic, note) => this.#send(topic, note))
  }

  /**
   * Opens the session, then tells the other instances this one is here, once the storage hears its notes
   * (`receive`): resolves once each of those alive sends its notes here too (src/postgres/presence.ts).
   */
  async start(): Promise<void> {
    await this.#connect(true)
    await this.#presence.join(true)
    // its hello on the wire before the storage serves: nothing of the start is left to cross the first units
    await this.#sent
  }

  async #connect(starting = false): Promise<void> {
    const session = new Connection(connecting(this.url, this.connectTimeoutMs))
    session.on('error', () => this.#lost(session))
    session.on('end', () => this.#lost(session))
    try {
      this.#opening = session
      await session.connect()
      await session.query(PROBED).catch(ignore)
      if (starting) {
        // one instance at a time: of two starting together, the second sees the first alive
        await session.query('SELECT pg_advisory_lock($1)', [START_LOCK])
        await clearFaultsWhenAlone(session, this.scope.lifeLock, this.owner)
      }
      const lifeLock = [this.scope.lifeLock, this.owner]
      while (!(await session.query('SELECT pg_try_advisory_lock($1, $2) AS ok', lifeLock)).rows[0].ok) {
        if (this.#closed) throw new Error(STOPPED)
        // a session of this instance's that the database has not seen end holds it: lost on this side only (a
        // dropped network), the database may not see it end for hours, so it is ended
        await session
          .query(`SELECT pg_terminate_backend(pid) FROM pg_locks WHERE ${lifeLockHeld('$1', '$2')}`, lifeLock)
          .catch(ignore)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      // what its own claims test (leases.ts): held only by a claim's try, for a moment, while the life lock was not
      await session.query(TAKE_ALIVE, lifeLock)
      if (starting) await session.query('SELECT pg_advisory_unlock($1)', [START_LOCK])
      if (this.#closed) throw new Error(STOPPED)
    } catch (error) {
      await session.end().catch(ignore)
      throw error
    } finally {
      this.#opening = undefined
    }
    this.#session = session
    // back after a loss, in which the others may have found it gone
    if (!starting) void this.#presence.rejoin().catch(ignore)
  }

  /** The session was lost (so was the life lock, and the leases with it): connect again in a moment. */
  #lost(session: pg.Client): void {
    if (this.#session !== session || this.#closed) return
    this.#session = undefined
    // its life lock gone, an instance starting now finds it not alive, and may commit without a note
    this.#presence.doubt()
    void session.end().catch(ignore)
    const again = () => {
      if (this.#closed) return
      this.#connect().catch(() => (this.#reconnect = setTimeout(again, RECONNECT_MS).unref()))
    }
    this.#reconnect = setTimeout(again, RECONNECT_MS).unref()
  }

  /**
   * Ends the session, or the one opening, while the database cannot be reached, so that a smart shutdown, which
   * waits for every session to end, can finish, and a database that answers nothing holds no start; it connects
   * again as after any loss, once the database lets it.
   */
  letGo(): void {
    void (this.#session ?? this.#opening)?.end().catch(ignore)
  }

  /** Whether the database answers a statement on the session within `ms` (connections.ts asks). */
  answers(ms: number): Promise<boolean> {
    return answersWithin(this.#session, ms)
  }

  claim(id: string, dueAt: number, leaseMs: number): Promise<Claim> {
    return this.#claims.add({id, dueAt, leaseMs})
  }

  /** The claims asked while the last ones were out, made together: one round trip (docs/postgres.md, "Speed"). */
  readonly #claims = new Batches((asked: readonly AskedClaim[]) =>
    claimDeliveries(this.sql, asked, this.owner, this.scope.lifeLock),
  )

  /**
   * Runs `change` holding the sandbox's clock lock on this instance's session (docs/postgres.md, "The scheduler
   * clock across instances"). Without a session, or with one lost while it waits, without the lock: the session
   * comes back by itself, and the clock is a simulator's, not worth failing the advance for. `shared`, a
   * restore's: restores of other accounts, which may wait on their rows, run at once.
   */
  async clockTurn<T>(change: () => Promise<T>, shared = false): Promise<T> {
    const session = this.#session
    const key = [`tablepay-clock:${this.scope.changes}`]
    const kind = shared ? '_shared' : ''
    const locked = await session?.query(`SELECT pg_advisory_lock${kind}(hashtextextended($1, 0))`, key).then(
      () => true,
      () => false,
    )
    try {
      return await change()
    } finally {
      if (locked) await session!.query(`SELECT pg_advisory_unlock${kind}(hashtextextended($1, 0))`, key).catch(ignore)
    }
  }

  /** Presence's stretch of time surely alone (src/postgres/presence.ts): what the storage's check cache is kept for. */
  get aloneStretch(): number | undefined {
    return this.#presence.aloneStretch
  }

  /** Another instance may be alive unheard of: the storage's listening connection was lost, or heard one's change. */
  doubt(): void {
    this.#presence.doubt()
  }

  broadcast(topic: string, note: () => unknown): boolean {
    // alone, a note would reach nobody: a request's cost a push a sixth of its CPU
    return this.#presence.alone || this.#send(topic, note())
  }

  #send(topic: string, note: unknown): boolean {
    const payload = JSON.stringify({from: this.owner, topic, note})
    if (Buffer.byteLength(payload) > PAYLOAD_BYTES) return false
    this.#outbox.push(payload)
    if (this.#outbox.length === 1 && !this.#sending)
      this.#sent = new Promise((resolve) => setImmediate(resolve)).then(() => this.#flush())
    return true
  }

  /**
   * One statement for the notes waiting (a request each, under load), in
   * their order; the next ones wait for it, so the others hear them in order.
   */
  async #flush(): Promise<void> {
    this.#sending = true
    while (this.#outbox.length > 0 && !this.#closed) {
      const payloads = this.#outbox
      this.#outbox = []
      // a note is best effort, as a live stream is: a lost one is not worth failing a request for
      // one text, a line each: JSON has no raw line break, and node-postgres escapes a text[] parameter's
      // elements one by one (a JSON array of them escaped each note's JSON again)
      await this.sql
        .query(
          "SELECT pg_notify($1, payload) FROM unnest(string_to_array($2::text, E'\\n')) WITH ORDINALITY AS n(payload, i) ORDER BY i",
          [this.scope.notes, payloads.join('\n')],
        )
        .catch(ignore)
    }
    this.#sending = false
  }

  listen(topic: string, listener: Listener): () => void {
    let listeners = this.#listeners.get(topic)
    if (!listeners) this.#listeners.set(topic, (listeners = new Set()))
    listeners.add(listener)
    return () => listeners.delete(listener)
  }

  onReconnect(listener: () => void): () => void {
    this.#reconnectListeners.add(listener)
    return () => this.#reconnectListeners.delete(listener)
  }

  /** The storage's listening connection is back: the notes sent while it was away were missed. */
  heardAgain(): void {
    void this.#presence.rejoin().catch(ignore)
    for (const listener of this.#reconnectListeners) listener()
  }

  /** A note on the scope's `notes` channel, which the storage's listening connection heard. */
  receive(payload: string): void {
    // this instance hears its own notes too: told apart by their start, they are not parsed (a request each)
    if (payload.startsWith(this.#ownNotes)) return
    const told = noteIn(payload)
    if (!told) return
    const {from, topic, note} = told
    if (from === this.owner || this.#presence.heard(from, topic, note)) return
    for (const listener of this.#listeners.get(topic) ?? []) {
      try {
        listener(note)
      } catch (error) {
        console.error('[tablepay] note listener failed', error)
      }
    }
  }

  async close(): Promise<void> {
    this.#presence.leave()
    // the others stop sending it notes now, not at their next look at who is alive; a database away does not hold the stop
    await atMost(this.#sent, 1000)
    this.#closed = true
    clearTimeout(this.#reconnect)
    void this.#opening?.end().catch(ignore)
    const session = this.#session
    this.#session = undefined
    // gone at once, not when the server gets round to ending the session: an instance starting next sees it gone
    await atMost(session?.query('SELECT pg_advisory_unlock_all()').catch(ignore), 1000)
    await atMost(session?.end().catch(ignore), 1000)
  }
}

/**
 * The note a payload on the notes channel holds, or undefined when it is none an instance sends: any session
 * of the database may NOTIFY the channel, and what it sends must not end every instance listening.
 */
function noteIn(payload: string): {from: number; topic: string; note: object} | undefined {
  let told: unknown
  try {
    told = JSON.parse(payload)
  } catch {
    return undefined
  }
  const {from, topic, note} = (told ?? {}) as {from?: unknown; topic?: unknown; note?: unknown}
  if (typeof from !== 'number' || typeof topic !== 'string' || typeof note !== 'object' || note === null)
    return undefined
  return {from, topic, note}
}
