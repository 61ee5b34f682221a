import {ApiCommand} from '../../cli/api-command.js'
import {requestFilterFlags, requestFilters} from '../../cli/flags/requests.js'
import {followRequests} from '../../cli/logs/request-feed.js'
import {UNTIL_STOPPED_EXIT_CODES} from '../../cli/exit-codes.js'
import {abortOnSignal} from '../../cli/shutdown.js'
import {fieldsOf, renderRequestLine} from '../../cli/views/request.js'
import {renderReconnected, renderStreamDropped} from '../../cli/views/stream.js'
import {style} from '../../cli/views/style.js'

export default class LogsTail extends ApiCommand<typeof LogsTail> {
  static override summary = 'Print the API requests of the account live, one line each.'

  static override description = `Each request to the API as it is answered: time, method, path, status, the push result or error code, duration and request id. \
With --json, one JSON object per line: the whole request log entry, bodies included. Runs until Ctrl+C. \
When the stream drops (the server restarts, the connection breaks) it reconnects, with a line on stderr, \
and first prints the requests logged meanwhile that the request log still holds (a restart empties it).`

  static override exitCodes = {...super.exitCodes, ...UNTIL_STOPPED_EXIT_CODES}

  static override keepsPrinting = true

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    {description: 'Only refusals of pushes', command: '<%= config.bin %> <%= command.id %> --status 4xx --method PUT'},
    {description: 'Everything about one check', command: '<%= config.bin %> <%= command.id %> --check t12'},
    {description: 'As JSON lines, for a script', command: '<%= config.bin %> <%= command.id %> --json'},
  ]

  static override flags = requestFilterFlags

  public async run(): Promise<void> {
    const signal = abortOnSignal()
    const entries = await followRequests(this.tailClient, await requestFilters(this.tailClient, this.flags), {
      signal,
      onDrop: (reason) => this.notice(renderStreamDropped(reason)),
      onReconnect: (count) => this.notice(renderReconnected({count, noun: 'request'})),
    })
    // stopped while its stream opened: it ends at once, and waits for nothing
    if (!signal.aborted) {
      // a server whose log is off would only ever send nothing: its log says so (not_found) instead of waiting
      await this.tailClient.listRequests({limit: 1})
      this.notice(style.dim('Waiting for requests. Ctrl+C to stop.'))
    }
    for await (const entry of entries) this.emit(entry, renderRequestLine(fieldsOf(entry)))
  }
}
