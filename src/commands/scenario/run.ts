import {arg} from '../../cli/flags/arg.js'
import {ApiCommand, timeoutFlag} from '../../cli/api-command.js'
import {SECOND_SIGNAL_EXIT_CODES} from '../../cli/exit-codes.js'
import {forwardToFlag} from '../../cli/flags/forward-to.js'
import {outputFor} from '../../cli/output.js'
import {readScenarioArg} from '../../cli/scenario-input.js'
import {abortOnSignal} from '../../cli/shutdown.js'
import {renderScenarioSummary, renderStepLine} from '../../cli/views/scenario.js'
import {runScenario, type ScenarioReport} from '../../scenarios/run.js'

export default class ScenarioRun extends ApiCommand<typeof ScenarioRun> {
  static override summary = 'Run a scenario: a whole dinner, both sides, scripted and checked.'

  static override description = `SCENARIO is a scenario file (docs/scenarios.md), the name of a shipped one (\`tablepay scenario list\`), or - to read it from stdin. \
Its steps run one after another against the server: the POS's pushes, the guests' claims, payments and refunds, the clock, faults, \
any API call, and expectations about the answers and the events. Each step prints one line, ✓ or ✗ with what differed (expected vs got). \
An expectation that fails does not stop the run; an action that fails does, since what follows builds on it.

The whole file is validated first: a bad one names the step and field, and nothing is sent (exit 2). \
--forward-to registers a temporary endpoint for your receiver, signed with the account's listen secret \
(\`tablepay listen --print-secret\`), and removes it at the end, on a failure or on Ctrl+C.`

  // an advance waits for the attempts due on the way, each up to the receiver timeout
  static override baseFlags = {...ApiCommand.baseFlags, timeout: timeoutFlag(0)}

  static override exitCodes = {
    0: 'Every step held.',
    1: 'A step did not hold (the report says which and what differed); or the server failed or Ctrl+C stopped it.',
    2: 'The scenario is not found, not JSON or not valid (the message names the step and field), or - found stdin empty: nothing was sent.',
    ...SECOND_SIGNAL_EXIT_CODES,
  }

  static override examples = [
    '<%= config.bin %> <%= command.id %> split-bill',
    {
      description: 'Your own file, its webhooks sent to your receiver',
      command: '<%= config.bin %> <%= command.id %> test/dinner.json --forward-to http://localhost:3000/webhooks',
    },
    {
      description: 'A scenario on stdin (-): here the first three steps of a shipped one',
      command:
        "jq '.steps |= .[:3]' node_modules/tablepay/fixtures/scenarios/split-bill.json | <%= config.bin %> <%= command.id %> -",
    },
    {description: 'A report for CI', command: '<%= config.bin %> <%= command.id %> refund --json > report.json'},
  ]

  static override args = {
    SCENARIO: arg({
      description: 'A scenario file, or the name of a shipped scenario; - reads stdin.',
      required: true,
    }),
  }

  static override flags = {
    'forward-to': forwardToFlag({summary: "Your receiver's URL: it gets the run's webhooks, signed."}),
  }

  public async run(): Promise<ScenarioReport> {
    const {scenario} = await readScenarioArg(this.args.SCENARIO)
    const json = this.jsonEnabled()
    const report = await runScenario(this.client, scenario, {
      forwardTo: this.flags['forward-to'],
      signal: abortOnSignal(),
      onStep: json ? undefined : (step) => this.log(renderStepLine(step)),
      wait: outputFor(json).wait,
    })
    this.log(renderScenarioSummary(report))
    if (report.interrupted) this.fail(report, 'The scenario run was interrupted.', {code: 'interrupted'})
    // a step skipped did not run, so it did not fail: the count says which are which, as the summary does
    const skipped = report.skipped > 0 ? ` (${report.skipped} skipped)` : ''
    if (!report.ok)
      this.fail(
        report,
        `Scenario ${scenario.name}: ${report.failed} of ${report.steps.length} steps did not hold${skipped}.`,
        {
          code: 'scenario_failed',
          suggestions: ['Each ✗ line says what was expected and what the server answered.'],
        },
      )
    return report
  }
}
