import type {SnapshotDocument} from '../../client/client.js'
import {ApiCommand} from '../../cli/api-command.js'
import {API_EXIT_CODES} from '../../cli/exit-codes.js'
import {outputFlag, writeOutput} from '../../cli/flags/output-file.js'
import {asInput, SNAPSHOT_EXIT_CODES, snapshotNameArg} from '../../cli/snapshots/input.js'
import {printable} from '../../cli/views/printable.js'

export default class SnapshotsExport extends ApiCommand<typeof SnapshotsExport> {
  static override summary = 'Print a snapshot as one self-contained JSON document, or write it to a file.'

  static override description =
    '`tablepay snapshots import FILE` takes it back, on this server or another (`serve --import FILE` at start).'

  static override exitCodes = {...API_EXIT_CODES, ...SNAPSHOT_EXIT_CODES}

  static override examples = [
    '<%= config.bin %> <%= command.id %> lunch-rush -o lunch-rush.json',
    '<%= config.bin %> <%= command.id %> lunch-rush | jq .records.checks',
  ]

  static override args = {NAME: snapshotNameArg}

  static override flags = {
    output: outputFlag,
  }

  public async run(): Promise<SnapshotDocument | {output: string; name: string}> {
    const document = await asInput(this.client.exportSnapshot(this.args.NAME))
    const output = this.flags.output
    if (!output) {
      // the document, whole: printed as it is with or without --json
      if (!this.jsonEnabled()) this.log(JSON.stringify(document, null, 2))
      return document
    }
    await writeOutput(output, `${JSON.stringify(document)}\n`, {secret: true})
    this.log(printable(`Wrote snapshot ${document.name} to ${output}.`))
    return {output, name: document.name}
  }
}
