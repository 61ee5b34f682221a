import {Command} from '../cli/command.js'
import {cliError} from '../cli/cli-error.js'
import {checkStoreFlags, execFlags} from '../cli/flags/serve.js'
import {exec} from '../serve/exec.js'

export default class Exec extends Command {
  static override summary = 'Run a command against a simulator that lives as long as it does.'

  static override description = `Starts a server in this process (in memory on a free port, unless --data, --database or --port say otherwise; \
any flag of \`serve\`), runs COMMAND with TABLEPAY_URL (…/v1), TABLEPAY_API_KEY, TABLEPAY_READ_KEY, TABLEPAY_DASHBOARD_URL \
and, when the seed gives the first account a webhook endpoint, its TABLEPAY_WEBHOOK_SECRET (one the server has no value \
for is unset), then stops the server. \
The server never outlives exec: SIGINT, SIGTERM and SIGHUP go to COMMAND, which the server outlasts. What COMMAND \
leaves running in the background is its own, as in a shell, and a SIGKILL of exec cannot reach COMMAND. Ctrl+C in a terminal, or \
its closing, reaches COMMAND once, directly; a program that signals the whole process group reaches it directly too, then through exec \
again: signal exec's pid instead. \
COMMAND's stdout is its own; the server writes on stderr. Only COMMAND is told where the server is: \
it is not in the registry other shells' commands look in. It exits with COMMAND's exit code.`

  static override exitCodes = {
    0: 'COMMAND exited 0.',
    1: 'COMMAND exited 1, or the server could not start (the message says why).',
    2: 'COMMAND exited 2, or a wrong command line: nothing was started.',
    '3-125': "COMMAND's exit code.",
    126: 'COMMAND could not be run.',
    127: 'COMMAND was not found.',
    '128+N': 'Signal N ended COMMAND (137 for SIGKILL, 143 for SIGTERM).',
  }

  static override examples = [
    {
      description: 'Run the tests in CI against a server with known keys',
      command: '<%= config.bin %> <%= command.id %> --seed ci-seed.json -- npm test',
    },
    {
      description: 'A shell command, with the variables it is given',
      command: `<%= config.bin %> <%= command.id %> -- sh -c 'curl -H "Authorization: Bearer $TABLEPAY_API_KEY" $TABLEPAY_URL/locations'`,
    },
  ]

  static override usage = '<%= command.id %> [FLAGS] -- COMMAND [ARGS…]'

  static override flags = execFlags

  // COMMAND's stdout is COMMAND's: nothing of this command's may land in it
  static override enableJsonFlag = false

  public async run(): Promise<void> {
    // split before parsing: COMMAND's own flags are not this command's
    const split = this.argv.indexOf('--')
    const command = split < 0 ? [] : this.argv.slice(split + 1)
    // an empty name (`-- ''`, a variable unset) runs nothing: spawn would throw
    if (!command[0])
      throw await cliError('Give the command to run after --, e.g. tablepay exec --seed ci-seed.json -- npm test.', {
        code: 'invalid_usage',
        exit: 2,
      })
    const {flags, raw} = await this.parse(Exec, this.argv.slice(0, split))
    await checkStoreFlags(flags, raw)
    process.exitCode = await exec(flags, command)
  }
}
