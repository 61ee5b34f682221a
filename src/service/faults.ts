import {
  createFault,
  type Fault,
  type FaultInput,
  faultMatches,
  type FaultRecord,
  nextRandom,
  renderFault,
} from '../domain/faults.js'

/**
 * The faults each account asked for (docs/api.md, "Faults and rate
 * limits"). Kept in memory, like the request log: a restart or
 * `POST /v1/sim/reset` clears them, so a forgotten fault never outlives the
 * test that made it.
 *
 * @example
 * const faults = new Faults()
 * faults.add('acct_demo', {status: 503, match: {path: '/v1/checks/**'}}, now)
 * faults.take('acct_demo', 'PUT', '/v1/checks/external/t12') // the fault, now used up
 */
export class Faults {
  #byAccount = new Map<string, FaultRecord[]>()

  add(accountId: string, input: FaultInput, now: string): Fault {
    const fault = createFault(input, accountId, now)
    const faults = this.#byAccount.get(accountId) ?? []
    this.#byAccount.set(accountId, [...faults, fault])
    return renderFault(fault)
  }

  /** The account's faults, oldest first. */
  list(accountId: string): Fault[] {
    return (this.#byAccount.get(accountId) ?? []).map(renderFault)
  }

  /** Removes one fault; false when the account has none with that id. */
  remove(accountId: string, id: string): boolean {
    const faults = this.#byAccount.get(accountId) ?? []
    const left = faults.filter((f) => f.id !== id)
    this.#byAccount.set(accountId, left)
    return left.length < faults.length
  }

  /** Removes every fault of the account; says how many. */
  clear(accountId: string): number {
    const count = this.#byAccount.get(accountId)?.length ?? 0
    this.#byAccount.delete(accountId)
    return count
  }

  /**
   * The fault this request gets, if any: the oldest that matches draws
   * against its probability; a hit counts down its `remaining`, and a fault
   * with none left is gone.
   */
  take(accountId: string, method: string, path: string): Fault | undefined {
    const faults = this.#byAccount.get(accountId)
    if (!faults || faults.length === 0) return undefined
    const fault = faults.find((f) => faultMatches(f, method, path))
    if (!fault || !this.#draw(fault)) return undefined
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
}
