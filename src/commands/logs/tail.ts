import {ApiCommand} from '../../cli/api-command.js'
import {requestFilterFlags, requestFilters} from '../../cli/flags/requests.js'
import {abortOnSignal} from '../../cli/shutdown.js'
import {fieldsOf, renderRequestLine} from '../../cli/views/request.js'
import {style} from '../../cli/views/style.js'
import {requestMatches} from '../../domain/request-log.js'

export default class LogsTail extends ApiCommand<typeof LogsTail> {
  static override summary = 'Print the API requests of the account live, one line each.'

  static override description = `Each request to the API as it is answered: time, method, path, status, the push result or error code, duration and request id. \
With --json, one JSON object per line: the whole request log entry, bodies included. Runs until Ctrl+C or until the server stops.`

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    {description: 'Only refusals of pushes', command: '<%= config.bin %> <%= command.id %> --status 4xx --method PUT'},
    {description: 'As JSON lines, for a script', command: '<%= config.bin %> <%= command.id %> --json'},
  ]

  static override flags = requestFilterFlags

  public async run(): Promise<void> {
    const filters = requestFilters(this.flags)
    const messages = await this.client.openRequestStream({signal: abortOnSignal()})
    this.notice(style.dim('Waiting for requests. Ctrl+C to stop.'))
    for await (const message of messages) {
      if (message.type !== 'request' || !requestMatches(message.data, filters)) continue
      this.emit(message.data, renderRequestLine(fieldsOf(message.data)))
    }
  }
}
