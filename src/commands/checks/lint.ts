import {arg} from '../../cli/flags/arg.js'
import {plural} from '../../cli/views/format.js'
import {type FileReport, lintFile} from '../../cli/lint/lint.js'
import {printable} from '../../cli/views/printable.js'
import {style} from '../../cli/views/style.js'
import {Command} from '../../cli/command.js'
import {cliError} from '../../cli/cli-error.js'

interface LintReport {
  valid: boolean
  files: FileReport[]
}

export default class ChecksLint extends Command {
  static override summary = "Check push bodies against the API's schema, offline."

  static override description = `Each FILE is a check push body (what \`checks push\` sends) or a \`checks replay\` scenario, \
whose every push body is checked; - reads one from stdin, reported as -. The schema is the server's own, so a file that passes here passes its validation; \
what only the server knows (whether location_id is one of your locations, the version stored) is not checked. No server is needed.

Prints every problem as FILE: PATH: MESSAGE, where PATH is a jq path (\`jq '.items[0].price_cents' FILE\` shows the value). \
--json prints {"valid", "files": [{"file", "kind", "valid", "problems": [{"path", "message"}]}]}, valid or not.`

  static override exitCodes = {
    0: 'Every file is valid.',
    1: 'A file has a problem, or cannot be read.',
    // a FILE it cannot read is a finding of its own, not a wrong command line
    2: 'A wrong command line (an unknown flag, no FILE, - twice), or - with nothing on stdin: nothing was checked.',
  }

  static override examples = [
    '<%= config.bin %> <%= command.id %> fixtures/checks/open.json',
    {
      description: 'Every file of a folder of yours; the shell expands the glob',
      command: '<%= config.bin %> <%= command.id %> checks/*.json scenarios/*.json',
    },
    {
      description: 'A body on stdin (-): here the first push of a replay scenario',
      command:
        "jq '.pushes[0].body' node_modules/tablepay/fixtures/replays/dinner-service.json | <%= config.bin %> <%= command.id %> -",
    },
    {description: 'A report for CI', command: '<%= config.bin %> <%= command.id %> payloads/*.json --json > lint.json'},
  ]

  // any number of files, as the shell expands a glob
  static override strict = false

  static override args = {
    FILE: arg({
      description:
        'JSON file: a push body or a replay scenario. Give several (a glob the shell expands works); - reads stdin, once.',
      required: true,
    }),
  }

  public async run(): Promise<LintReport> {
    const {argv} = await this.parse(ChecksLint)
    // stdin can be read once: a second - would be linted as empty
    if ((argv as string[]).filter((file) => file === '-').length > 1)
      throw await cliError('- (stdin) is given more than once: stdin can be read once.', {
        code: 'invalid_usage',
        exit: 2,
      })
    const files = await Promise.all((argv as string[]).map((file) => lintFile(file)))
    for (const {file, valid, problems} of files) {
      // a file's name, and a message quoting what it holds (JSON.parse's), may hold what a terminal acts on
      const name = printable(file)
      if (valid) this.log(`${name}: ${style.green('ok')}`)
      for (const {path, message} of problems) this.log(`${name}: ${style.bold(printable(path))}: ${printable(message)}`)
    }
    const report = {valid: files.every((f) => f.valid), files}
    if (!report.valid) {
      const count = files.reduce((sum, f) => sum + f.problems.length, 0)
      const failed = files.filter((f) => !f.valid).length
      this.fail(report, `${plural(count, 'problem')} in ${failed} of ${plural(files.length, 'file')}.`, {
        code: 'lint_failed',
        suggestions: ['docs/api.md ("The check push") gives the rule of every field.'],
      })
    }
    return report
  }
}
