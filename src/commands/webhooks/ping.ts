import {arg} from '../../cli/flags/arg.js'
import type {WebhookTestResult} from '../../client/client.js'
import {ApiCommand, timeoutFlag} from '../../cli/api-command.js'
import {renderTestResult} from '../../cli/views/endpoint.js'
import {withSpinner} from '../../cli/views/spinner.js'
import {STOPPED_WAITING_EXIT_CODES} from '../../cli/exit-codes.js'
import {sayingOnSignal} from '../../cli/shutdown.js'

export default class WebhooksPing extends ApiCommand<typeof WebhooksPing> {
  static override summary = 'Send a signed ping to an endpoint now and show how it answered.'

  static override description = `The server POSTs an envelope of type "ping", signed like every delivery, whatever event types the endpoint has, \
so scripts can check a receiver end to end.`

  static override exitCodes = {
    ...STOPPED_WAITING_EXIT_CODES,
    0: 'The receiver answered 2xx.',
    1: 'It did not (not within the receiver timeout), or the server refused the request: the message says which.',
  }

  // its answer waits for the receiver, up to the server's receiver timeout
  static override baseFlags = {...ApiCommand.baseFlags, timeout: timeoutFlag(0)}

  static override examples = ['<%= config.bin %> <%= command.id %> we_4f0b6k2m9q1x8s7d3a5z']

  static override args = {ID: arg({description: 'Endpoint id (we_…).', required: true})}

  public async run(): Promise<WebhookTestResult> {
    const result = await withSpinner(
      'Waiting for the receiver',
      sayingOnSignal(
        'The ping goes on in the server all the same.',
        this.client.testWebhookEndpoint(this.args.ID),
        this.jsonEnabled(),
      ),
      {
        quiet: this.jsonEnabled(),
      },
    )
    this.log(renderTestResult(result))
    if (!result.succeeded) process.exitCode = 1
    return result
  }
}
