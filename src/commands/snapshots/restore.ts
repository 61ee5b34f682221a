import type {Snapshot} from '../../client/client.js'
import {ApiCommand} from '../../cli/api-command.js'
import {API_EXIT_CODES} from '../../cli/exit-codes.js'
import {asInput, SNAPSHOT_EXIT_CODES, snapshotNameArg} from '../../cli/snapshots/input.js'
import {renderSnapshotDone} from '../../cli/views/snapshot.js'

export default class SnapshotsRestore extends ApiCommand<typeof SnapshotsRestore> {
  static override summary = 'Make the account exactly what a snapshot saved.'

  static override description =
    'Every record made since is gone, and the scheduler clock is back where it was (for the whole server). Deliveries pending then are pending again; attempts out now are not recorded. The request log and faults stay, and live streams get a reset.'

  static override exitCodes = {...API_EXIT_CODES, ...SNAPSHOT_EXIT_CODES}

  static override examples = ['<%= config.bin %> <%= command.id %> lunch-rush']

  static override args = {NAME: snapshotNameArg}

  public async run(): Promise<Snapshot> {
    const snapshot = await asInput(this.client.restoreSnapshot(this.args.NAME))
    this.log(renderSnapshotDone('Restored', snapshot))
    return snapshot
  }
}
