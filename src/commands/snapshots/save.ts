import type {Snapshot} from '../../client/client.js'
import {ApiCommand} from '../../cli/api-command.js'
import {asInput, SNAPSHOT_EXIT_CODES, snapshotNameArg} from '../../cli/snapshots/input.js'
import {renderSnapshotDone} from '../../cli/views/snapshot.js'
import {API_EXIT_CODES} from '../../cli/exit-codes.js'

export default class SnapshotsSave extends ApiCommand<typeof SnapshotsSave> {
  static override summary = "Save the account's records and the scheduler clock under a name."

  static override description =
    'Checks, claims, payments, refunds, feedback, events, deliveries, webhook endpoints with their secrets, idempotency keys and the clock offset. Saving a name again replaces that snapshot. Restore it with `tablepay snapshots restore NAME`.'

  static override exitCodes = {...API_EXIT_CODES, ...SNAPSHOT_EXIT_CODES}

  static override examples = ['<%= config.bin %> <%= command.id %> lunch-rush']

  static override args = {NAME: snapshotNameArg}

  public async run(): Promise<Snapshot> {
    const snapshot = await asInput(this.client.saveSnapshot(this.args.NAME))
    this.log(renderSnapshotDone('Saved', snapshot))
    return snapshot
  }
}
