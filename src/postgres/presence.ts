import type {Sql} from './reader.js'
import {lifeLocksHeld} from './leases.js'

/** The topics of the notes of presence, which every instance sends whether or not it is alone. */
const HELLO = 'instance_hello'
const WELCOME = 'instance_welcome'
const BYE = 'instance_bye'

/** How long a starting instance waits for the answers of those alive before it goes on without them, in ms. */
const WELCOME_MS = 2000

/** How often an instance looks at which others hold their life locks, in ms: one gone stops costing it notes. */
const LOOK_EVERY_MS = 10_000

/** The owners of the life locks of first key `$1` held on this database (src/postgres/instance.ts), but `$2`'s. */
const ALIVE = `SELECT objid::text AS owner FROM pg_locks WHERE ${lifeLocksHeld('$1')} AND objid <> $2::oid`

/**
 * Which other instances are alive on the database, for the notes: one
 * alone sends none (docs/postgres.md, "The request log across instances").
 * A starting instance reads which others hold their life locks, tells them
 * it is here (`hello`), and waits until each has answered that it now sends
 * it its notes (`welcome`); one that stops says so (`bye`). Every
 * LOOK_EVERY_MS it reads the life locks again, so one that died stops
 * costing the others. `send` sends a note, alone or not. `aloneStretch`
 * says whether it is surely alone, for the checks the storage keeps
 * (docs/postgres.md, "Reads while alone").
 *
 * @example
 * const presence = new Presence(owner, scope.lifeLock, sql, (topic, note) => outbox.push({topic, note}))
 * await presence.join(true)
 */
export class Presence {
  readonly #others = new Set<number>()
  /** Notes of presence heard so far: a look at the life locks that began before one does not undo what it said. */
  #heard = 0
  /** Whether a look at the life locks ended since the last `doubt`: a hello may have been missed before it. */
  #sure = false
  #doubts = 0
  /** Moves on whenever who is alive may have changed: each stretch of time alone has a number of its own. */
  #stretch = 0
  /** The instances a starting one waits to hear `welcome` from, and what ends the wait. */
  #waiting: {owners: Set<number>; done: () => void} | undefined
  #looking: NodeJS.Timeout | undefined

  constructor(
    private readonly owner: number,
    private readonly lifeLock: number,
    private readonly sql: Sql,
    private readonly send: (topic: string, note: object) => void,
  ) {}

  /** Whether no other instance is known alive: this one's notes would reach nobody. */
  get alone(): boolean {
    return this.#others.size === 0
  }

  /**
   * The number of the stretch of time in which this instance has surely been alone, undefined while it is not,
   * or may not be: what a cache kept while alone holds is true only in the stretch it was kept in.
   */
  get aloneStretch(): number | undefined {
    return this.#sure && this.#others.size === 0 ? this.#stretch : undefined
  }

  /** Another instance may be alive unheard of (a hello missed, a change of one heard): not sure until the next look. */
  doubt(): void {
    this.#sure = false
    this.#doubts++
    this.#stretch++
  }

  /** Tells the others this instance is here; with `wait`, resolves once those alive answered, or after WELCOME_MS. */
  async join(wait: boolean): Promise<void> {
    this.#looking ??= setInterval(() => void this.#look().catch(() => {}), LOOK_EVERY_MS).unref()
    const alive = await this.#look()
    const answered = new Promise<void>((done) => (this.#waiting = {owners: new Set(alive), done}))
    if (alive.length === 0) this.#waiting!.done()
    this.send(HELLO, {})
    if (wait) await Promise.race([answered, new Promise((resolve) => setTimeout(resolve, WELCOME_MS).unref())])
    this.#waiting = undefined
  }

  /** A note from the instance `from`: true when it was one of presence, which no other listener hears. */
  heard(from: number, topic: string, note: unknown): boolean {
    const presence = topic === HELLO || topic === WELCOME || topic === BYE
    if (presence) this.#heard++
    if (topic === BYE) {
      if (this.#others.delete(from)) this.#stretch++
      return true
    }
    // any note says its sender is alive: an instance of an earlier version says no hello
    if (!this.#others.has(from)) {
      this.#others.add(from)
      this.#stretch++
    }
    if (topic === HELLO) this.send(WELCOME, {to: from})
    if (topic === WELCOME && (note as {to?: number}).to === this.owner) {
      const waiting = this.#waiting
      waiting?.owners.delete(from)
      if (waiting?.owners.size === 0) waiting.done()
    }
    return presence
  }

  /**
   * Joins again after a time in which it may have heard nothing (its listening connection or its session was
   * lost): a hello may have been missed, and a look made meanwhile vouches for nothing, so it doubts first.
   */
  rejoin(): Promise<void> {
    this.doubt()
    return this.join(false)
  }

  /** Tells the others this instance stops. */
  leave(): void {
    clearInterval(this.#looking)
    this.send(BYE, {})
  }

  /** Reads which others hold their life locks, and takes them as those alive; resolves with their owners. */
  async #look(): Promise<number[]> {
    const [heard, doubts] = [this.#heard, this.#doubts]
    const {rows} = await this.sql.query<{owner: string}>(ALIVE, [this.lifeLock, this.owner])
    const owners = rows.map((row) => Number(row.owner))
    if (doubts === this.#doubts && !this.#sure) {
      this.#sure = true
      this.#stretch++
    }
    if (heard !== this.#heard) return owners
    if (owners.length !== this.#others.size || owners.some((owner) => !this.#others.has(owner))) {
      this.#others.clear()
      for (const owner of owners) this.#others.add(owner)
      this.#stretch++
    }
    return owners
  }
}
