import {
  createFault,
  drawAt,
  type Fault,
  type FaultInput,
  faultMatches,
  type FaultRecord,
  nextRandom,
  renderFault,
} from '../domain/faults.js'
import {checkLimit, limitReached, LIMITS} from '../domain/limits.js'
import {accountGone} from './accounts.js'
import type {SharedStorage, StoredFault} from './storage.js'

/** The topic of the notes that keep each instance's copy of the faults current. */
const TOPIC = 'faults'

/** What changed in the faults of `account_id`: one added, one gone, or all of them gone. */
interface FaultNote {
  account_id: string
  added?: StoredFault
  gone?: string
  /**
   * The faults cleared: those up to this place in the database's order, so that a note that arrives late takes
   * none added since (`true`, from an earlier version: all).
   */
  cleared?: number | true
}

/**
 * The faults each account asked for (docs/api.md, "Faults and rate
 * limits"). Kept in memory, like the request log: a restart or
 * `POST /v1/sim/reset` clears them, so a forgotten fault never outlives the
 * test that made it. On PostgreSQL (`shared`) they live in the database for
 * every instance (docs/postgres.md, "Faults across instances"); each keeps a
 * copy to match requests against, so that only a request a fault matches
 * costs a round trip: the one that counts its strike.
 *
 * @example
 * const faults = new Faults()
 * await faults.add('acct_demo', {status: 503, match: {path: '/v1/checks/**'}}, now)
 * const routed = (method: string, path: string) => routes.takes(method, path)
 * faults.take('acct_demo', 'PUT', '/v1/checks/external/t12', routed) // the fault, now used up
 */
export class Faults {
  #byAccount = new Map<string, FaultRecord[]>()
  /** On PostgreSQL: the faults as last heard, oldest first, each with its place in the database's order. */
  #copy = new Map<string, StoredFault[]>()

  /** `exists` says whether an account is still there: a scratch account may go while a request adds a fault. */
  constructor(
    private readonly shared?: SharedStorage,
    private readonly limit: number = LIMITS.faults,
    private readonly exists: (accountId: string) => Promise<boolean> = async () => true,
  ) {}

  /** On PostgreSQL: loads the faults and follows the other instances' changes to them; resolves with a stop. */
  async start(): Promise<() => void> {
    const {shared} = this
    if (!shared) return () => {}
    const unlisten = shared.listen(TOPIC, (note) => this.#heard(note as FaultNote))
    // notes sent while this instance was not listening are lost: the database tells what they said
    const unreconnect = shared.onReconnect(() => void this.#load(shared).catch(() => {}))
    await this.#load(shared)
    return () => {
      unlisten()
      unreconnect()
    }
  }

  /** Adds a fault; past the account's limit (100: `LIMITS`), 422 `limit_reached`. */
  async add(accountId: string, input: FaultInput, now: string): Promise<Fault> {
    const fault = createFault(input, accountId, now)
    if (this.shared) {
      // counted by the database with the insert: additions sent at once, to any instance, count in turn
      const stored = await this.shared.faults.add(fault, this.limit)
      if (stored === undefined) throw accountGone()
      if (typeof stored === 'number') throw limitReached('faults', stored, this.limit)
      this.#heard({account_id: accountId, added: stored}, true)
      return renderFault(stored.fault)
    }
    // nothing runs between the look, the count and the add: a deletion after them clears what was added
    if (!(await this.exists(accountId))) throw accountGone()
    const faults = this.#byAccount.get(accountId) ?? []
    checkLimit('faults', faults.length, this.limit)
    this.#byAccount.set(accountId, [...faults, fault])
    return renderFault(fault)
  }

  /** The account's faults, oldest first. */
  async list(accountId: string): Promise<Fault[]> {
    if (this.shared) return (await this.shared.faults.all(accountId)).map(({fault}) => renderFault(fault))
    return (this.#byAccount.get(accountId) ?? []).map(renderFault)
  }

  /** Removes one fault; false when the account has none with that id. */
  async remove(accountId: string, id: string): Promise<boolean> {
    if (this.shared) {
      const removed = await this.shared.faults.remove(accountId, id)
      this.#heard({account_id: accountId, gone: id}, true)
      return removed
    }
    const faults = this.#byAccount.get(accountId) ?? []
    const left = faults.filter((f) => f.id !== id)
    this.#byAccount.set(accountId, left)
    return left.length < faults.length
  }

  /** Removes every fault of the account; says how many. */
  async clear(accountId: string): Promise<number> {
    if (this.shared) {
      const {count, through} = await this.shared.faults.clear(accountId)
      this.#heard({account_id: accountId, cleared: through}, true)
      return count
    }
    const count = this.#byAccount.get(accountId)?.length ?? 0
    this.#byAccount.delete(accountId)
    return count
  }

  /**
   * The fault this request gets, if any: the oldest that matches draws
   * against its probability; a hit counts down its `remaining`, and a fault
   * with none left is gone. On PostgreSQL a request no fault matches is
   * answered at once; one that a fault matches waits for its strike to be
   * counted in the database. `routed` says whether a route takes the
   * request: faults strike only API routes, never a 404 or a 405. It is
   * asked only once a fault matches: a request no fault matches looks up no
   * route beyond the router's.
   */
  take(
    accountId: string,
    method: string,
    path: string,
    routed: (method: string, path: string) => boolean,
  ): Fault | undefined | Promise<Fault | undefined> {
    if (this.shared) {
      const matching = this.#copy.get(accountId)?.filter(({fault}) => faultMatches(fault, method, path))
      return matching && matching.length > 0 && routed(method, path) ? this.#strike(accountId, matching) : undefined
    }
    const faults = this.#byAccount.get(accountId)
    if (!faults || faults.length === 0) return undefined
    const fault = faults.find((f) => faultMatches(f, method, path))
    if (!fault || !routed(method, path) || !this.#draw(fault)) return undefined
    if (fault.remaining !== null) {
      fault.remaining--
      if (fault.remaining === 0)
        this.#byAccount.set(
          accountId,
          faults.filter((f) => f !== fault),
        )
    }
    return renderFault(fault)
  }

  #draw(fault: FaultRecord): boolean {
    if (fault.probability >= 1) return true
    if (fault.random_state === undefined) return Math.random() < fault.probability
    const {value, state} = nextRandom(fault.random_state)
    fault.random_state = state
    return value < fault.probability
  }

  /**
   * The oldest of `matching` that the database still has draws against its
   * probability and, on a hit, takes one of its strikes; one another
   * instance used up meanwhile is passed over for the next.
   */
  async #strike(accountId: string, matching: StoredFault[]): Promise<Fault | undefined> {
    const {faults} = this.shared!
    for (const {fault} of matching) {
      let drawn: number | undefined
      if (fault.probability < 1 && fault.seed !== null) {
        // the seed's sequence is one for all instances: this request takes its next draw
        const n = await faults.draw(fault.id)
        if (n === undefined) {
          this.#heard({account_id: accountId, gone: fault.id}, true)
          continue
        }
        drawn = drawAt(fault.seed, n)
      } else if (fault.probability < 1) drawn = Math.random()
      if (drawn !== undefined && drawn >= fault.probability) return undefined
      const struck = await faults.strike(fault.id)
      if (struck?.remaining === 0 || !struck) this.#heard({account_id: accountId, gone: fault.id}, true)
      if (struck) return renderFault({...fault, remaining: struck.remaining})
    }
    return undefined
  }

  async #load(shared: SharedStorage): Promise<void> {
    const copy = new Map<string, StoredFault[]>()
    for (const stored of await shared.faults.all()) {
      const faults = copy.get(stored.fault.account_id) ?? []
      copy.set(stored.fault.account_id, [...faults, stored])
    }
    this.#copy = copy
  }

  /** A change to the faults, here (`own`: the others are told) or from another instance. */
  #heard(note: FaultNote, own = false): void {
    const faults = this.#copy.get(note.account_id) ?? []
    let left = faults
    const {cleared} = note
    if (cleared !== undefined) left = cleared === true ? [] : faults.filter(({seq}) => seq > cleared)
    if (note.gone !== undefined) left = faults.filter(({fault}) => fault.id !== note.gone)
    if (note.added && !faults.some(({fault}) => fault.id === note.added!.fault.id))
      left = [...faults, note.added].sort((a, b) => a.seq - b.seq)
    if (left.length > 0) this.#copy.set(note.account_id, left)
    else this.#copy.delete(note.account_id)
    if (own) this.shared!.broadcast(TOPIC, () => note)
  }
}
