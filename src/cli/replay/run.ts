import {type PushResult, TablepayClient} from '../../client/client.js'
import {TablepayApiError, TablepayError} from '../../client/errors.js'
import type {ScratchAccount} from '../../domain/schemas.js'
import {rejectOnAbort} from '../../shared/reject-on-abort.js'
import {comparableCheck, type ComparableCheck, type Difference, diffStates, shuffledOrder} from './replay.js'
import type {Scenario} from './scenario.js'

/** What the server answered to one push: its push result, or the error code it refused it with. */
export type PushOutcome = {result: PushResult} | {error: {code: string; message: string}}

export interface RunReport {
  /** Push numbers (1-based, as in the scenario) in the order they were sent. */
  order: number[]
  /** The answer to each push of `order`. */
  outcomes: PushOutcome[]
}

/** A push whose answer shows the versions are wrong, whatever the final states. */
export interface ReplayProblem {
  run: 'in_order' | 'shuffled'
  push: number
  external_id: string
  version: number | null
  outcome: PushOutcome
}

export interface ReplayReport {
  seed: number
  duplicates: boolean
  /** The scenario's external check ids, in order of first push. */
  checks: string[]
  in_order: RunReport
  shuffled: RunReport
  /** Both runs ended with the same checks. */
  converged: boolean
  differences: Difference[]
  /** In order, a stale or refused push; shuffled, a refused one. */
  problems: ReplayProblem[]
  ok: boolean
  /** The two scratch accounts; deleted at the end unless `kept`. */
  accounts: {in_order: {id: string; api_key: string}; shuffled: {id: string; api_key: string}}
  kept: boolean
}

export interface ReplayOptions {
  seed: number
  duplicates: boolean
  /** Leave the scratch accounts in place instead of deleting them. */
  keep: boolean
  /** Aborting stops the replay; its scratch accounts are still deleted (unless `keep`: the error names them). */
  signal?: AbortSignal
}

/** One run in a scratch account: every push of `order`, one after another, then each check's final state. */
async function run(
  client: TablepayClient,
  account: ScratchAccount,
  scenario: Scenario,
  checks: string[],
  order: number[],
) {
  const api = client.withApiKey(account.api_keys[0]!.key)
  const copies = new Map(account.locations.map((l) => [l.copy_of, l.id]))
  const originals = new Map(account.locations.map((l) => [l.id, l.copy_of]))
  const outcomes: PushOutcome[] = []
  for (const index of order) {
    const {external_id, body} = scenario.pushes[index]!
    const location =
      body.location_id === undefined ? {} : {location_id: copies.get(body.location_id) ?? body.location_id}
    outcomes.push(await api.pushCheck(external_id, {...body, ...location}).then(({result}) => ({result}), refusal))
  }
  const states: Record<string, ComparableCheck | null> = {}
  for (const id of checks) {
    const check = await api
      .getCheckByExternalId(id)
      .catch((error) => (isNotFound(error) ? null : Promise.reject(error)))
    states[id] = check && comparableCheck(check, (l) => originals.get(l) ?? l)
  }
  return {report: {order: order.map((i) => i + 1), outcomes}, states}
}

// a refusal is a result of the replay; anything else (no server, a bad key) ends it
function refusal(error: unknown): PushOutcome {
  if (error instanceof TablepayApiError && error.status < 500)
    return {error: {code: error.code, message: error.message}}
  throw error
}

const isNotFound = (error: unknown) => error instanceof TablepayApiError && error.code === 'not_found'

function problemsOf(name: ReplayProblem['run'], {order, outcomes}: RunReport, scenario: Scenario): ReplayProblem[] {
  return outcomes.flatMap((outcome, i) => {
    const stale = name === 'in_order' && 'result' in outcome && outcome.result === 'stale'
    if (!stale && !('error' in outcome)) return []
    const push = order[i]!
    const {external_id, body} = scenario.pushes[push - 1]!
    return [{run: name, push, external_id, version: body.version ?? null, outcome}]
  })
}

/**
 * `checks replay`: runs the scenario in order in one scratch account and
 * shuffled (seeded) in another, then compares the checks both end with.
 * The scratch accounts copy the caller's locations, so the runs are isolated
 * from the caller's data and from each other; they are deleted afterwards
 * unless `keep`.
 *
 * @example
 * const report = await replayScenario(client, scenario, {seed: 42, duplicates: true, keep: false})
 * report.ok // true when the versions converge and no push was refused
 */
export async function replayScenario(
  client: TablepayClient,
  scenario: Scenario,
  {seed, duplicates, keep, signal}: ReplayOptions,
): Promise<ReplayReport> {
  const checks = [...new Set(scenario.pushes.map((p) => p.external_id))]
  const accounts: ScratchAccount[] = []
  /** Each account asked for: one the server makes after a stop is the run's too, kept or removed with the others. */
  const made: Promise<unknown>[] = []
  const stopped = rejectOnAbort(signal, () => new TablepayError('interrupted', 'The replay was interrupted.'))
  try {
    for (let i = 0; i < 2; i++) {
      const making = client.createScratchAccount()
      made.push(
        making.then(
          (account) => accounts.push(account),
          () => {},
        ),
      )
      await Promise.race([making, stopped])
    }
    const [ordered, shuffled] = await Promise.race([
      Promise.all([
        run(
          client,
          accounts[0]!,
          scenario,
          checks,
          scenario.pushes.map((_, i) => i),
        ),
        run(client, accounts[1]!, scenario, checks, shuffledOrder(scenario.pushes.length, {seed, duplicates})),
      ]),
      stopped,
    ])
    const differences = diffStates(ordered.states, shuffled.states)
    const problems = [
      ...problemsOf('in_order', ordered.report, scenario),
      ...problemsOf('shuffled', shuffled.report, scenario),
    ]
    const summary = (a: ScratchAccount) => ({id: a.id, api_key: a.api_keys[0]!.key})
    return {
      seed,
      duplicates,
      checks,
      in_order: ordered.report,
      shuffled: shuffled.report,
      converged: differences.length === 0,
      differences,
      problems,
      ok: differences.length === 0 && problems.length === 0,
      accounts: {in_order: summary(accounts[0]!), shuffled: summary(accounts[1]!)},
      kept: keep,
    }
  } catch (error) {
    if (!(error instanceof TablepayError && error.code === 'interrupted')) throw error
    await Promise.all(made)
    const list = accounts.map((a) => `${a.id} (key ${a.api_keys[0]!.key})`).join(' and ')
    const what = !keep ? 'removed' : accounts.length > 0 ? `kept: ${list}` : 'not made yet'
    throw new TablepayError('interrupted', `The replay was interrupted; its scratch accounts were ${what}.`)
  } finally {
    await Promise.all(made)
    if (!keep) await Promise.all(accounts.map((a) => client.deleteScratchAccount(a.id)))
  }
}
