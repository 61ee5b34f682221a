import {InvalidScenarioError} from '../scenarios/errors.js'
import {loadScenario, parseScenario} from '../scenarios/files.js'
import {cliError} from './cli-error.js'
import {readInputText} from './input-text.js'

/**
 * The scenario a command names (a file, a shipped one's name, or `-` for
 * stdin, its `file` then `-`), or the CLI error of a bad one: exit 2, every
 * step and field in the message, and with --json `{valid: false, problems}`.
 * A file not found, unreadable or not JSON has no problems to list: --json
 * prints the error body, its message saying why.
 *
 * @example
 * const {scenario} = await readScenarioArg(this.args.SCENARIO)
 */
export async function readScenarioArg(fileOrName: string): ReturnType<typeof loadScenario> {
  try {
    if (fileOrName !== '-') return await loadScenario(fileOrName)
    const {text, source} = await readInputText(fileOrName, {what: 'scenario', named: 'a file or a name instead of -'})
    return {scenario: parseScenario(text, source), file: fileOrName}
  } catch (error) {
    if (!(error instanceof InvalidScenarioError)) throw error
    const {problems} = error
    throw await cliError(error.message, {
      exit: 2,
      code: 'invalid_scenario',
      ...(problems.length > 0
        ? {
            report: {valid: false, problems},
            suggestions: ['docs/scenarios.md gives every step kind and what it takes.'],
          }
        : {
            suggestions: [
              'Give one JSON file (docs/scenarios.md shows one whole), or the name of a shipped scenario (`tablepay scenario list`).',
            ],
          }),
    })
  }
}
