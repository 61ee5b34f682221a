import {Flags} from '@oclif/core'
import type {Check, List} from '../../client/client.js'
import {BaseCommand} from '../../lib/base-command.js'
import {renderCheckList} from '../../lib/check-view.js'
import {style} from '../../lib/style.js'

export default class ChecksList extends BaseCommand<typeof ChecksList> {
  static override summary = 'List checks, newest first.'

  static override description = 'One page of the account\'s checks. When there are more, the last line gives the --starting-after value of the next page.'

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    {description: 'Open checks only, 50 per page', command: '<%= config.bin %> <%= command.id %> --status open --limit 50'},
    {description: 'Next page', command: '<%= config.bin %> <%= command.id %> --starting-after chk_4f0b6k2m9q1x8s7d3a5z'},
  ]

  static override flags = {
    limit: Flags.integer({char: 'n', summary: 'Checks per page (1-100).', min: 1, max: 100}),
    status: Flags.option({char: 's', summary: 'Only checks with this status.', options: ['open', 'closed', 'voided'] as const})(),
    'starting-after': Flags.string({summary: 'Check id after which the page starts (the previous page\'s next cursor).'}),
  }

  public async run(): Promise<List<Check>> {
    const page = await this.client.listChecks({
      limit: this.flags.limit,
      status: this.flags.status,
      starting_after: this.flags['starting-after'],
    })
    this.log(page.data.length > 0 ? renderCheckList(page.data) : style.dim('No checks.'))
    if (page.has_more) this.log(style.dim(`More: --starting-after ${page.next_cursor}`))
    return page
  }
}
