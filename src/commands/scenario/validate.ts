import {arg} from '../../cli/flags/arg.js'
import {Command} from '../../cli/command.js'
import {plural} from '../../cli/views/format.js'
import {printable} from '../../cli/views/printable.js'
import {style} from '../../cli/views/style.js'
import {readScenarioArg} from '../../cli/scenario-input.js'

export default class ScenarioValidate extends Command {
  static override summary = 'Check a scenario file without running it.'

  static override description = `Validates the whole file as \`scenario run\` does before its first request: the step kinds, \
what each takes, every \${…} reference (to a step before it) and every JSON subset. A bad file names each step (number and id) \
and field, and exits 2. - reads the scenario from stdin. No server is needed; what only the server decides (a push body's fields) is left to it.`

  static override exitCodes = {
    0: 'The scenario is valid.',
    2: 'The scenario is not found, not JSON or not valid (the message names each step and field), or - found stdin empty.',
  }

  static override examples = [
    '<%= config.bin %> <%= command.id %> test/dinner.json',
    '<%= config.bin %> <%= command.id %> split-bill --json',
    {
      description: 'A scenario on stdin (-), reported as -: here the first three steps of a shipped one',
      command:
        "jq '.steps |= .[:3]' node_modules/tablepay/fixtures/scenarios/split-bill.json | <%= config.bin %> <%= command.id %> -",
    },
  ]

  static override args = {
    SCENARIO: arg({
      description: 'A scenario file, or the name of a shipped scenario; - reads stdin.',
      required: true,
    }),
  }

  public async run(): Promise<{valid: true; name: string; steps: number; file: string}> {
    const {args} = await this.parse(ScenarioValidate)
    const {scenario, file} = await readScenarioArg(args.SCENARIO)
    this.log(
      // the file's name as given: escaped, as checks lint prints its files'
      `${printable(args.SCENARIO)}: ${style.green('valid')}, scenario ${scenario.name} of ${plural(scenario.steps.length, 'step')}`,
    )
    return {valid: true, name: scenario.name, steps: scenario.steps.length, file}
  }
}
