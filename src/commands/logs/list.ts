import type {List, RequestEntry} from '../../client/client.js'
import {ApiCommand} from '../../cli/api-command.js'
import {pageFlags, pageParams} from '../../cli/flags/page.js'
import {requestFilterFlags, requestFilters} from '../../cli/flags/requests.js'
import {renderPage} from '../../cli/views/page.js'
import {fieldsOf, renderRequestLine} from '../../cli/views/request.js'
import {textFlag} from '../../cli/flags/filter.js'

export default class LogsList extends ApiCommand<typeof LogsList> {
  static override summary = 'List the API requests of the account, newest first.'

  static override description = `The request log: the last requests the server answered for this account (1,000 unless \`serve --request-log\` says otherwise), \
kept in memory. \`logs get\` shows one with both bodies and what it changed.`

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    {
      description: 'Failed pushes',
      command: '<%= config.bin %> <%= command.id %> --status 4xx --path /v1/checks/external',
    },
    {
      description: 'Everything about one check',
      command: '<%= config.bin %> <%= command.id %> --check t12',
    },
  ]

  static override flags = {
    ...pageFlags('requests'),
    ...requestFilterFlags,
    'error-code': textFlag({summary: 'Only requests refused with this error code (validation_failed).'}),
  }

  public async run(): Promise<List<RequestEntry>> {
    const page = await this.client.listRequests({
      ...pageParams(this.flags),
      // finding the check --check names is the CLI's own read, not the user's traffic
      ...(await requestFilters(this.tailClient, this.flags)),
      error_code: this.flags['error-code'],
    })
    this.log(
      renderPage(page, (rows) => rows.map((e) => renderRequestLine(fieldsOf(e))).join('\n'), 'requests', this.nextPage),
    )
    return page
  }
}
