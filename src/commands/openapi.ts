import {DEFAULT_URL} from '../client/config.js'
import {Command} from '../cli/command.js'
import {outputFlag, writeOutput} from '../cli/flags/output-file.js'
import {serverUrlFlag} from '../cli/flags/server-url.js'
import {printable} from '../cli/views/printable.js'
import {openApiDocument} from '../server/openapi.js'

interface Written {
  output: string
  operations: number
}

export default class Openapi extends Command {
  static override summary = 'Print the OpenAPI 3.1 document of the API.'

  static override description = `The document is generated from the route table and zod schemas the server itself validates with, \
so it matches what \`serve\` answers; a running server serves the same document at GET /v1/openapi.json, without a key. \
No server is needed here.

The document is JSON with or without --json. With --output it goes to FILE, and the command prints where it went \
({"output", "operations"} with --json).`

  static override examples = [
    '<%= config.bin %> <%= command.id %> > openapi.json',
    {description: 'Write it to a file', command: '<%= config.bin %> <%= command.id %> --output openapi.json'},
    {
      description: 'Name the server your generated client will call',
      command: '<%= config.bin %> <%= command.id %> --server-url http://127.0.0.1:4848',
    },
    {
      description: 'Every operation id',
      // a path's shared parameters sit beside its operations, as an array
      command: "<%= config.bin %> <%= command.id %> | jq -r '.paths[][] | objects | .operationId'",
    },
  ]

  static override flags = {
    output: outputFlag,
    'server-url': serverUrlFlag({
      summary: `The server the document names (its "servers"), with or without /v1. Default: ${DEFAULT_URL}.`,
    }),
  }

  public async run(): Promise<Record<string, unknown> | Written> {
    const {flags} = await this.parse(Openapi)
    const document = openApiDocument(flags['server-url'] ?? DEFAULT_URL)
    const text = `${JSON.stringify(document, null, 2)}\n`
    if (!flags.output) {
      this.log(text.trimEnd())
      return document
    }
    await writeOutput(flags.output, text)
    const operations = operationCount(document)
    // the file's name as given, escaped as snapshots export prints its own
    this.log(printable(`Wrote the OpenAPI 3.1 document (${operations} operations) to ${flags.output}.`))
    return {output: flags.output, operations}
  }
}

/** The operations under the document's paths, HEAD ones included; a path's shared `parameters` is none. */
const operationCount = (document: Record<string, unknown>) =>
  Object.values(document.paths as Record<string, Record<string, unknown>>)
    .flatMap((item) => Object.values(item))
    .filter((value) => !Array.isArray(value)).length
