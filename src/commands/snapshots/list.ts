import type {List, Snapshot} from '../../client/client.js'
import {ApiCommand} from '../../cli/api-command.js'
import {wholeList} from '../../cli/list-pages.js'
import {renderPage} from '../../cli/views/page.js'
import {renderSnapshotList} from '../../cli/views/snapshot.js'

export default class SnapshotsList extends ApiCommand<typeof SnapshotsList> {
  static override summary = "List the account's snapshots, newest first."

  static override description =
    "Each with the time it was saved and the records it holds. Snapshots are the account's own: teammates on one sandbox see only theirs. Save one with `tablepay snapshots save NAME`."

  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']

  public async run(): Promise<List<Snapshot>> {
    const page = await wholeList((params) => this.client.listSnapshots(params))
    this.log(renderPage(page, renderSnapshotList, 'snapshots', this.nextPage))
    return page
  }
}
