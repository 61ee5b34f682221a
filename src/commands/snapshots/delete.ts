import type {Deleted} from '../../client/client.js'
import {ApiCommand} from '../../cli/api-command.js'
import {API_EXIT_CODES} from '../../cli/exit-codes.js'
import {asInput, SNAPSHOT_EXIT_CODES, snapshotNameArg} from '../../cli/snapshots/input.js'
import {printable} from '../../cli/views/printable.js'

export default class SnapshotsDelete extends ApiCommand<typeof SnapshotsDelete> {
  static override summary = 'Delete a snapshot.'

  static override description = 'The account stays as it is.'

  static override exitCodes = {...API_EXIT_CODES, ...SNAPSHOT_EXIT_CODES}

  static override examples = ['<%= config.bin %> <%= command.id %> lunch-rush']

  static override args = {NAME: snapshotNameArg}

  public async run(): Promise<Deleted> {
    const deleted = await asInput(this.client.deleteSnapshot(this.args.NAME))
    this.log(printable(`Deleted snapshot ${deleted.id}.`))
    return deleted
  }
}
