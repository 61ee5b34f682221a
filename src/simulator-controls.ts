import {
  type ClientOptions,
  type Clock,
  type Fault,
  type FaultInput,
  type ListParams,
  type RequestEntry,
  type RequestFilters,
  type Snapshot,
  TablepayClient,
} from './client/client.js'
import {CLIENT_HEADER} from './domain/constants.js'
import {firstKeys, type SeededAccount} from './domain/seeded-account.js'
import {ScenarioFailedError} from './scenarios/errors.js'
import type {ScenarioReport} from './scenarios/run.js'

export type {SeededAccount}
export type {Fault, FaultInput, RequestEntry, RequestFilters, ScenarioReport, Snapshot}

/** What a test needs of a running simulator, wherever it runs (a port, or msw). */
export interface SimulatorControls {
  /** The API base with /v1, as `serve` prints it; the client and `TABLEPAY_URL` take it as is. */
  url: string
  /** A write key of the first account. */
  apiKey: string
  /** A read-only key of the first account, when the seed gave it one (the default seed does). */
  readKey: string | undefined
  /** Every seeded account with its locations and keys. */
  accounts: SeededAccount[]
  clock: {
    /** Moves the scheduler clock forward; resolves once every delivery attempt that fell due has run. */
    advance(seconds: number): Promise<Clock & {attempts: number}>
    /** Puts the scheduler clock back on real time; pending deliveries keep their due times. */
    reset(): Promise<Clock>
  }
  /** Deletes the first account's checks, claims, payments, feedback, events and deliveries; keys, locations and endpoints stay. */
  reset(): Promise<void>
  /**
   * The first account's requests, newest first, as the request log keeps
   * them (bodies, errors, what a push moved): assert what the code under
   * test sent. Filters as `GET /v1/sim/requests` takes them.
   */
  requests(filters?: RequestFilters & ListParams): Promise<RequestEntry[]>
  snapshots: {
    /** Saves the first account's records and the clock's offset as `name` (replacing one of that name). */
    save(name: string): Promise<Snapshot>
    /** Makes the first account exactly what `name` saved: a known state before each test, in milliseconds. */
    restore(name: string): Promise<Snapshot>
  }
  faults: {
    /** Makes the next matching requests of the first account fail, slow down or lose their answer. */
    add(fault: FaultInput): Promise<Fault>
    list(): Promise<Fault[]>
    /** Removes one fault, or all of them. */
    clear(id?: string): Promise<void>
  }
  /**
   * Runs a scenario (docs/scenarios.md) against the first account: a file,
   * the name of a shipped one (`split-bill`), or the scenario itself.
   * Resolves with the report when every step held; rejects with a
   * `ScenarioFailedError` (its `report`) when one did not, and with an
   * `InvalidScenarioError` naming each bad step and field before anything is sent.
   */
  runScenario(scenario: string | object, options?: {forwardTo?: string}): Promise<ScenarioReport>
}

/**
 * The controls of a simulator at `url`, sending through `fetch` (default
 * the global one) with the first account's write key.
 *
 * @example
 * const controls = simulatorControls('http://127.0.0.1:4747/v1', server.accounts)
 * await controls.clock.advance(3600)
 */
export function simulatorControls(
  url: string,
  accounts: SeededAccount[],
  fetch?: ClientOptions['fetch'],
): SimulatorControls {
  const {write: apiKey, read: readKey} = firstKeys(accounts)
  if (!apiKey)
    throw new Error(
      'tablepay: the first account of the seed has no write key; give it one with scopes ["read", "write"].',
    )
  const client = new TablepayClient({url, apiKey, fetch})
  // its own reads, as the CLI's tails read: `requests()` lists what the code under test sent, and a fault of the
  // test's strikes that code, not the test's look at its faults (docs/api.md, "The request log")
  const reader = new TablepayClient({url, apiKey, fetch, headers: {[CLIENT_HEADER]: 'testing'}})
  return {
    url,
    apiKey,
    readKey,
    accounts,
    clock: {advance: (seconds) => client.advanceClock(seconds), reset: () => client.resetClock()},
    async reset() {
      await client.reset()
    },
    snapshots: {save: (name) => client.saveSnapshot(name), restore: (name) => client.restoreSnapshot(name)},
    requests: async (filters = {}) => (await client.listRequests({limit: 100, ...filters})).data,
    faults: {
      add: (fault) => client.addFault(fault),
      list: async () => (await reader.listFaults({limit: 100})).data,
      async clear(id) {
        await client.clearFaults(id)
      },
    },
    async runScenario(scenario, options = {}) {
      // loaded on first use: a test that runs no scenario needs neither the run, its receiver (node:http) nor its files
      const [{loadScenario, validScenario}, {runScenario}] = await Promise.all([
        import('./scenarios/files.js'),
        import('./scenarios/run.js'),
      ])
      const valid =
        typeof scenario === 'string'
          ? (await loadScenario(scenario)).scenario
          : validScenario(scenario, 'The scenario given')
      const report = await runScenario(client, valid, options)
      if (!report.ok) throw new ScenarioFailedError(report)
      return report
    },
  }
}

/**
 * `controls`, each of whose calls once `closed()` rejects saying the simulator was closed, and how to get
 * another (`instead`): a call after `close()` (an `afterAll` that ran first) would otherwise say that no server
 * answers at its URL, or be answered by what close() stopped.
 */
export function untilClosed<T extends object>(controls: T, closed: () => boolean, instead: string): T {
  const wrapped = Object.entries(controls).map(([name, value]) => {
    if (typeof value === 'function')
      return [name, (...args: unknown[]) => (closed() ? Promise.reject(closedError(instead)) : value(...args))]
    const group = value !== null && typeof value === 'object' && !Array.isArray(value)
    return [name, group ? untilClosed(value as object, closed, instead) : value]
  })
  return Object.fromEntries(wrapped) as T
}

const closedError = (instead: string) =>
  new Error(`tablepay: this simulator was closed (close()); call its controls before, or ${instead}.`)
