import {Errors} from '@oclif/core'
import {arg} from '../../cli/flags/arg.js'
import type {Snapshot, SnapshotDocument} from '../../client/client.js'
import {ApiCommand} from '../../cli/api-command.js'
import {API_EXIT_CODES} from '../../cli/exit-codes.js'
import {readJsonObject} from '../../cli/read-json.js'
import {asInput, SNAPSHOT_EXIT_CODES} from '../../cli/snapshots/input.js'
import {renderSnapshotDone} from '../../cli/views/snapshot.js'

// what to give instead of a file that holds no snapshot, or a document the server refused
const MAKE_ONE = 'Export a snapshot with `tablepay snapshots export NAME -o FILE`, and import that file.'

export default class SnapshotsImport extends ApiCommand<typeof SnapshotsImport> {
  static override summary = "Store an exported snapshot in the account, under the document's name."

  static override description =
    'Ids are kept; a document of another account is imported into this one. A snapshot of that name is replaced. Restore it with `tablepay snapshots restore NAME`.'

  static override exitCodes = {...API_EXIT_CODES, ...SNAPSHOT_EXIT_CODES}

  static override examples = [
    '<%= config.bin %> <%= command.id %> lunch-rush.json',
    '<%= config.bin %> snapshots export lunch-rush | <%= config.bin %> <%= command.id %> -',
  ]

  static override args = {FILE: arg({description: 'The exported document; - reads stdin.', required: true})}

  public async run(): Promise<Snapshot> {
    const document = await readJsonObject(this.args.FILE, 'the file instead of -').catch((error: Errors.CLIError) => {
      // a file that holds no snapshot document was the wrong thing to name: nothing was done
      const suggestions = error.suggestions ?? (error.code === 'invalid_json' ? [MAKE_ONE] : undefined)
      throw new Errors.CLIError(error.message, {exit: 2, code: error.code, suggestions})
    })
    const snapshot = await asInput(this.client.importSnapshot(document as unknown as SnapshotDocument), MAKE_ONE)
    this.log(renderSnapshotDone('Imported', snapshot))
    return snapshot
  }
}
