import {Flags} from '@oclif/core'
import {arg} from '../../cli/flags/arg.js'
import type {Delivery} from '../../client/client.js'
import {ApiCommand} from '../../cli/api-command.js'
import {ATTEMPT_WAIT_MS, reportAttempt, resendAndWait} from '../../cli/deliveries/queued-attempt.js'
import {withSpinner} from '../../cli/views/spinner.js'
import {STOPPED_WAITING_EXIT_CODES} from '../../cli/exit-codes.js'
import {sayingOnSignal} from '../../cli/shutdown.js'
import {textFlag} from '../../cli/flags/filter.js'

export default class EventsResend extends ApiCommand<typeof EventsResend> {
  static override summary = 'Send an event again to one endpoint, now, and show how the receiver answered.'

  static override description = `A new delivery of the event, with the same body bytes and event id, attempted at once. \
The endpoint must be enabled and take the event's type. Waits up to ${ATTEMPT_WAIT_MS / 1000} s for the attempt and prints the delivery with it; \
if the attempt does not end in time, says it is queued or out to a slow receiver (with --no-wait, queued), and when it is due if delivery chaos holds it back. Once it succeeds, the endpoint's other deliveries of the event \
still waiting for a retry are superseded. --json prints the delivery, with "attempted": false when its attempt was not seen.`

  static override exitCodes = {
    ...STOPPED_WAITING_EXIT_CODES,
    0: 'The receiver took the attempt, or it is queued (--no-wait) or had not ended in time.',
    1: 'The receiver did not take the attempt, or the server refused the request: the message says which.',
  }

  static override examples = [
    '<%= config.bin %> <%= command.id %> evt_4f0b6k2m9q1x8s7d3a5z --endpoint we_4f0b6k2m9q1x8s7d3a5z',
  ]

  static override args = {ID: arg({description: 'Event id (evt_…).', required: true})}

  static override fieldFlags = {endpoint_id: '--endpoint'}

  static override flags = {
    endpoint: textFlag({helpValue: 'ID', summary: 'Endpoint to send it to (we_…).', required: true}),
    wait: Flags.boolean({summary: 'Wait for the attempt and print its result.', default: true, allowNo: true}),
  }

  public async run(): Promise<Delivery & {attempted: boolean}> {
    const {endpoint, wait} = this.flags
    const resent = sayingOnSignal(
      `The new delivery goes on in the server all the same: \`tablepay deliveries list --event ${this.args.ID}\` shows it.`,
      resendAndWait({write: this.client, read: this.tailClient}, this.args.ID, endpoint, wait ? undefined : 0),
      this.jsonEnabled(),
    )
    const outcome = await withSpinner('Waiting for the attempt', resent, {quiet: this.jsonEnabled() || !wait})
    return reportAttempt(outcome, (text) => this.log(text))
  }
}
