import {Flags} from '@oclif/core'
import {CHECK_STATUSES} from '../../domain/constants.js'
import type {Check, List} from '../../client/client.js'
import {ApiCommand} from '../../cli/api-command.js'
import {renderCheckList} from '../../cli/views/check.js'
import {pageFlags, pageParams} from '../../cli/flags/page.js'
import {renderPage} from '../../cli/views/page.js'

export default class ChecksList extends ApiCommand<typeof ChecksList> {
  static override summary = 'List checks, newest first.'

  static override description =
    "One page of the account's checks. When there are more, the last line gives the command line of the next page: the same flags, its --starting-after."

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    {
      description: 'Open checks only, 50 per page',
      command: '<%= config.bin %> <%= command.id %> --status open --limit 50',
    },
    {
      description: 'Next page',
      command: '<%= config.bin %> <%= command.id %> --starting-after chk_4f0b6k2m9q1x8s7d3a5z',
    },
  ]

  static override flags = {
    ...pageFlags('checks'),
    status: Flags.option({summary: 'Only checks with this status.', options: CHECK_STATUSES})(),
  }

  public async run(): Promise<List<Check>> {
    const page = await this.client.listChecks({...pageParams(this.flags), status: this.flags.status})
    this.log(renderPage(page, renderCheckList, 'checks', this.nextPage))
    return page
  }
}
