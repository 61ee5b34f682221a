import {TablepayError} from '../client/errors.js'
import type {ScenarioProblem} from '../domain/scenario.js'
import {brand} from '../shared/error-brand.js'
import type {ScenarioReport} from './run.js'

/** A scenario that cannot run: not found, not JSON, or not valid; `problems` name each step and field. Nothing was sent. */
export class InvalidScenarioError extends TablepayError {
  static {
    brand(this, 'InvalidScenarioError')
  }

  constructor(
    message: string,
    readonly problems: ScenarioProblem[] = [],
  ) {
    super('invalid_scenario', message)
    this.name = 'InvalidScenarioError'
  }
}

/**
 * A step as reports name it: its number, and its id if it has one.
 *
 * @example
 * stepName(3, 'c1') // '3 (c1)'
 */
export const stepName = (step: number, id?: string) => `${step}${id === undefined ? '' : ` (${id})`}`

/** A problem as a line: `step 3 (c1) .steps[2].claim.check: …`. */
export const describeProblem = ({step, id, path, message}: ScenarioProblem) =>
  `${step === undefined ? '' : `step ${stepName(step, id)} `}${path}: ${message}`

/** A run in which a step did not hold: `report` has every step, the message those that failed. */
export class ScenarioFailedError extends TablepayError {
  static {
    brand(this, 'ScenarioFailedError')
  }

  constructor(readonly report: ScenarioReport) {
    const failed = report.steps.filter((s) => !s.ok && !s.skipped)
    const lines = failed.map((s) => `  step ${stepName(s.step, s.id)} ${s.title}: ${whatDiffered(s)}`)
    super('scenario_failed', `Scenario ${report.scenario} failed (run ${report.run}):\n${lines.join('\n')}`)
    this.name = 'ScenarioFailedError'
  }
}

const show = (value: unknown) => (value === undefined ? '(nothing)' : JSON.stringify(value))

/**
 * What a failed step got that it should not have, in one line: `status:
 * expected 200, got 409; .status: expected "open", got "closed"`, then why.
 * The differences are cut at `most` characters (their values can be whole
 * checks), never the why.
 *
 * @example
 * whatDiffered({differences: [{path: '.status', expected: 'open', got: 'closed'}], …})
 */
export function whatDiffered({differences, error}: ScenarioReport['steps'][number], most = Infinity): string {
  const shown = differences.map((d) => `${d.path}: expected ${show(d.expected)}, got ${show(d.got)}`).join('; ')
  const parts = [shown.length > most ? `${shown.slice(0, most)}…` : shown]
  if (error) parts.push(error)
  return parts.filter((part) => part !== '').join('; ')
}
