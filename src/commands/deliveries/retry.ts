import {Flags} from '@oclif/core'
import {arg} from '../../cli/flags/arg.js'
import type {Delivery} from '../../client/client.js'
import {ApiCommand} from '../../cli/api-command.js'
import {ATTEMPT_WAIT_MS, reportAttempt, retryAndWait} from '../../cli/deliveries/queued-attempt.js'
import {withSpinner} from '../../cli/views/spinner.js'
import {STOPPED_WAITING_EXIT_CODES} from '../../cli/exit-codes.js'
import {sayingOnSignal} from '../../cli/shutdown.js'

export default class DeliveriesRetry extends ApiCommand<typeof DeliveriesRetry> {
  static override summary = 'Send a delivery again now and show how the receiver answered.'

  static override description = `Queues one more attempt at once, whatever the delivery's state (a dead one too), keeping its attempts so far, \
then waits up to ${ATTEMPT_WAIT_MS / 1000} s for that attempt and prints the delivery with it. \
If the attempt does not end in time, says it is queued or out to a slow receiver (with --no-wait, queued): watch it with \`deliveries tail\`; \
one that delivery chaos holds back past the wait is not waited for: it says when it is due. \
If the attempt fails, the retry schedule continues from where the delivery was. \
--json prints the delivery, with "attempted": false when the new attempt was not seen.`

  static override exitCodes = {
    ...STOPPED_WAITING_EXIT_CODES,
    0: 'The receiver took the attempt, or it is queued (--no-wait) or had not ended in time.',
    1: 'The receiver did not take the attempt, or the server refused the request: the message says which.',
  }

  static override examples = [
    '<%= config.bin %> <%= command.id %> dlv_4f0b6k2m9q1x8s7d3a5z',
    {
      description: 'Queue it and return at once',
      command: '<%= config.bin %> <%= command.id %> dlv_4f0b6k2m9q1x8s7d3a5z --no-wait',
    },
  ]

  static override args = {ID: arg({description: 'Delivery id (dlv_…).', required: true})}

  static override flags = {
    wait: Flags.boolean({summary: 'Wait for the new attempt and print its result.', default: true, allowNo: true}),
  }

  public async run(): Promise<Delivery & {attempted: boolean}> {
    const {wait} = this.flags
    const retried = sayingOnSignal(
      `The attempt goes on in the server all the same: \`tablepay deliveries get ${this.args.ID}\` shows it.`,
      retryAndWait({write: this.client, read: this.tailClient}, this.args.ID, wait ? undefined : 0),
      this.jsonEnabled(),
    )
    const outcome = await withSpinner('Waiting for the attempt', retried, {quiet: this.jsonEnabled() || !wait})
    return reportAttempt(outcome, (text) => this.log(text))
  }
}
