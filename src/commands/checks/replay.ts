import {withoutBom} from '../../shared/json-file.js'
import {randomInt} from 'node:crypto'
import {Errors, Flags} from '@oclif/core'
import {arg} from '../../cli/flags/arg.js'
import {ApiCommand} from '../../cli/api-command.js'
import {readInputText} from '../../cli/input-text.js'
import {checkJson} from '../../cli/lint/lint.js'
import {replayScenario, type ReplayReport} from '../../cli/replay/run.js'
import {renderReplay} from '../../cli/replay/view.js'
import {SECOND_SIGNAL_EXIT_CODES} from '../../cli/exit-codes.js'
import {abortOnSignal} from '../../cli/shutdown.js'
import {Scenario} from '../../cli/replay/scenario.js'
import {withSpinner} from '../../cli/views/spinner.js'

export default class ChecksReplay extends ApiCommand<typeof ChecksReplay> {
  static override summary = 'Prove that your versions converge: replay pushes in order, then shuffled, and compare.'

  static override description = `SCENARIO is a JSON file (- reads stdin) {"description"?, "pushes": [{"external_id", "body"}]}: the pushes your POS made, \
in the order it made them, for one or more checks (fixtures/replays/ has examples). \
They are pushed in that order into one fresh scratch account, then in a shuffled order (--seed; --duplicates sends some twice) into another, \
and the checks both runs end with are compared, field by field.

With right versions (raised on every change) the order does not matter: both runs end in the same state. \
The scratch accounts copy your account's locations and are deleted at the end (--keep leaves them, to look at with their keys); \
your own checks, events and webhooks are not touched.`

  static override exitCodes = {
    0: 'Both runs ended in the same state, with no push refused or stale.',
    1: 'The runs differ, or a push was refused or stale (a later change with a lower version in the order made); or another failure (the server, Ctrl+C), as the message says.',
    2: 'The scenario file cannot be read, or is not a scenario; or a wrong command line.',
    ...SECOND_SIGNAL_EXIT_CODES,
  }

  static override examples = [
    '<%= config.bin %> <%= command.id %> fixtures/replays/dinner-service.json',
    {
      description: 'The same shuffle again, with some pushes sent twice',
      command: '<%= config.bin %> <%= command.id %> fixtures/replays/dinner-service.json --seed 42 --duplicates',
    },
    {
      description: 'A scenario on stdin (-): here the first three pushes of one',
      command:
        "jq '.pushes |= .[:3]' node_modules/tablepay/fixtures/replays/dinner-service.json | <%= config.bin %> <%= command.id %> -",
    },
    {
      description: 'A POS whose versions are wrong: the runs differ',
      command: '<%= config.bin %> <%= command.id %> fixtures/replays/version-per-line-count.json --seed 3',
    },
  ]

  static override args = {
    SCENARIO: arg({description: 'Scenario file (JSON); - reads stdin.', required: true}),
  }

  static override flags = {
    seed: Flags.integer({
      summary: 'Seed of the shuffle, to repeat one. Default: a random one, printed.',
      min: 0,
      max: 2 ** 32 - 1,
    }),
    duplicates: Flags.boolean({
      summary: 'Send about a third of the pushes twice in the shuffled run, as an at-least-once queue would.',
      default: false,
    }),
    keep: Flags.boolean({
      summary: 'Keep the two scratch accounts and print their keys, instead of deleting them.',
      default: false,
    }),
  }

  public async run(): Promise<ReplayReport> {
    const scenario = await readScenario(this.args.SCENARIO)
    const seed = this.flags.seed ?? randomInt(2 ** 31)
    const options = {seed, duplicates: this.flags.duplicates, keep: this.flags.keep, signal: abortOnSignal()}
    const report = await withSpinner('Replaying', replayScenario(this.client, scenario, options), {
      quiet: this.jsonEnabled(),
    })
    this.log(renderReplay(report, scenario))
    if (!report.ok) {
      this.fail(
        report,
        report.converged
          ? 'Some pushes were refused or stale.'
          : 'The two runs ended in different states: the versions do not converge.',
        {
          code: 'replay_failed',
          suggestions: [
            'Send a "version" that your POS raises on every change to the check (a revision counter, or epoch milliseconds), and location_id on every push.',
            `Repeat this run with --seed ${seed}.`,
          ],
        },
      )
    }
    return report
  }
}

/** The scenario, from a file or stdin, or a CLI error listing every problem, as `checks lint` would. */
async function readScenario(file: string): Promise<Scenario> {
  const {text, source} = await readInputText(file, {what: 'scenario', named: 'the scenario file instead of -'})
  // a scenario, as every JSON file a command reads (docs/cli.md), may start with a byte order mark
  const checked = checkJson(withoutBom(text), Scenario)
  if (checked.valid) return checked.value
  const problems = checked.problems.map((p) => `  ${p.path}: ${p.message}`).join('\n')
  // a wrong input, as `scenario run` refuses one (docs/cli.md, "Flags and exit codes")
  throw new Errors.CLIError(`${source} is not a valid scenario:\n${problems}`, {
    exit: 2,
    code: 'invalid_scenario',
    suggestions: [
      'A scenario is {"pushes": [{"external_id": "t12", "body": {…a check push…}}]}; see fixtures/replays/.',
    ],
  })
}
