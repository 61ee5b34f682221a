import {TablepayApiError} from '../../client/errors.js'
import {followAttempts} from '../../cli/deliveries/attempt-feed.js'
import {ApiCommand} from '../../cli/api-command.js'
import {attemptJson, renderAttemptLine} from '../../cli/views/delivery.js'
import {UNTIL_STOPPED_EXIT_CODES} from '../../cli/exit-codes.js'
import {abortOnSignal} from '../../cli/shutdown.js'
import {
  renderDeletedAway,
  renderGoneAway,
  renderReconnected,
  renderRestoredAway,
  renderStreamDropped,
} from '../../cli/views/stream.js'
import {style} from '../../cli/views/style.js'
import {textFlag} from '../../cli/flags/filter.js'

export default class DeliveriesTail extends ApiCommand<typeof DeliveriesTail> {
  static override summary = 'Print delivery attempts live, one line each.'

  static override description = `Each attempt as it is made: time, event type, endpoint, the receiver's answer, duration, and for a failure what happens next. \
With --json, one JSON object per line. Runs until Ctrl+C. \
When the stream drops (the server restarts, the connection breaks) it reconnects, with a line on stderr, \
and first prints the attempts made meanwhile to deliveries created since or still pending. \
With --endpoint, it exits 1 (not_found) when that endpoint is not there: at the start, after a reconnect to a server that lost its data, once a snapshot's restore removed it, or once it is deleted (\`webhooks delete\`, from anywhere).`

  static override exitCodes = {...super.exitCodes, ...UNTIL_STOPPED_EXIT_CODES}

  static override keepsPrinting = true

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    {
      description: 'One endpoint, as JSON lines',
      command: '<%= config.bin %> <%= command.id %> --endpoint we_4f0b6k2m9q1x8s7d3a5z --json',
    },
  ]

  static override flags = {
    endpoint: textFlag({summary: 'Only attempts to this endpoint (we_…).'}),
  }

  public async run(): Promise<void> {
    const {endpoint} = this.flags
    if (endpoint) await this.#requireEndpoint(endpoint)
    const signal = abortOnSignal()
    const feed = await followAttempts(this.tailClient, {
      signal,
      endpointId: endpoint,
      onReset: endpoint ? () => this.#requireEndpoint(endpoint, RESTORED_AWAY) : undefined,
      // asked again, as after a restore: an id the account chose may be back already
      onEndpointDeleted: async (id) => id === endpoint && this.#requireEndpoint(endpoint, DELETED_AWAY),
      // a server that restarted without its data lost the endpoint too
      onReopen: endpoint ? () => this.#requireEndpoint(endpoint, GONE_AWAY) : undefined,
      onDrop: (reason) => this.notice(renderStreamDropped(reason)),
      onReconnect: (count) => this.notice(renderReconnected({count, noun: 'attempt'})),
    })
    // stopped while its stream opened: it ends at once, and waits for nothing
    if (!signal.aborted) this.notice(style.dim('Waiting for delivery attempts. Ctrl+C to stop.'))
    for await (const {delivery, attempt} of feed)
      this.emit(attemptJson(delivery, attempt), renderAttemptLine(delivery, attempt))
  }

  /**
   * Ends the tail (not_found, exit 1) when endpoint `id` is not there: it would only ever show nothing, so it says
   * so instead of waiting. At the start the server's answer says it; later, `away` says what removed it.
   */
  async #requireEndpoint(id: string, away?: Away): Promise<void> {
    try {
      await this.tailClient.getWebhookEndpoint(id)
    } catch (error) {
      if (!away || !(error instanceof TablepayApiError && error.status === 404)) throw error
      // the server's code (not_found), as at the start, with words that say what removed the endpoint
      this.error(away.message(id), {exit: 1, code: error.code, suggestions: [away.suggestion(id)]})
    }
  }
}

/** What removed the endpoint a tail follows, and what to do next. */
interface Away {
  message(id: string): string
  suggestion(id: string): string
}

/** A snapshot's restore: the snapshot was saved without the endpoint. */
const RESTORED_AWAY: Away = {
  message: renderRestoredAway,
  suggestion: (id) =>
    `\`tablepay webhooks list\` shows the endpoints the snapshot held: tail one of them, or restore a snapshot saved with ${id} and tail it again.`,
}

/** A deletion while the tail ran: from another terminal, by a teammate on a shared database. */
const DELETED_AWAY: Away = {
  message: renderDeletedAway,
  suggestion: () =>
    '`tablepay webhooks list` shows the endpoints left: tail one of them, or register one with `tablepay webhooks create` and tail it.',
}

/** A restart: the server came back without its data (`--memory`, another data dir). */
const GONE_AWAY: Away = {
  message: renderGoneAway,
  suggestion: () =>
    '`tablepay webhooks create` registers an endpoint, `tablepay webhooks list` shows those the server has: tail one of them.',
}
