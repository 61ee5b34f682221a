import {InvalidScenarioError} from '../scenarios/errors.js'
import {loadScenario} from '../scenarios/files.js'
import {cliError} from './cli-error.js'

/**
 * The scenario a command names (a file, or a shipped one's name), or the
 * CLI error of a bad one: exit 2, every step and field in the message, and
 * with --json `{valid: false, problems}`.
 *
 * @example
 * const {scenario} = await readScenarioArg(this.args.SCENARIO)
 */
export async function readScenarioArg(fileOrName: string): ReturnType<typeof loadScenario> {
  try {
    return await loadScenario(fileOrName)
  } catch (error) {
    if (!(error instanceof InvalidScenarioError)) throw error
    throw await cliError(error.message, {
      exit: 2,
      code: 'invalid_scenario',
      report: {valid: false, problems: error.problems},
      suggestions: ['docs/scenarios.md gives every step kind and what it takes.'],
    })
  }
}
