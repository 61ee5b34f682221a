import type {Snapshot} from '../../client/client.js'
import {ApiCommand} from '../../cli/api-command.js'
import {API_EXIT_CODES} from '../../cli/exit-codes.js'
import {asInput, SNAPSHOT_EXIT_CODES, snapshotNameArg} from '../../cli/snapshots/input.js'
import {renderSnapshotDone} from '../../cli/views/snapshot.js'

/**
 * What to do once a restore is refused (422: ids another account holds here, records an older import holds twice,
 * more endpoints than an account may have): the server's message says where to import the snapshot instead, or
 * what to correct first, and each way starts from its export.
 */
const fromItsExport = (name: string) =>
  `\`tablepay snapshots export ${name} -o ${name}.json\` exports it; \`tablepay snapshots import ${name}.json --api-key KEY\` imports it into KEY's account, \`tablepay serve --import ${name}.json\` into the server it starts.`

export default class SnapshotsRestore extends ApiCommand<typeof SnapshotsRestore> {
  static override summary = 'Make the account exactly what a snapshot saved.'

  static override description =
    'Every record made since is gone, and the scheduler clock is back where it was (for the whole server). Deliveries pending then are pending again; attempts out now are not recorded. The request log and faults stay, and live streams get a reset.'

  static override exitCodes = {...API_EXIT_CODES, ...SNAPSHOT_EXIT_CODES}

  static override examples = ['<%= config.bin %> <%= command.id %> lunch-rush']

  static override args = {NAME: snapshotNameArg}

  public async run(): Promise<Snapshot> {
    const snapshot = await asInput(this.client.restoreSnapshot(this.args.NAME), fromItsExport(this.args.NAME))
    this.log(renderSnapshotDone('Restored', snapshot))
    return snapshot
  }
}
