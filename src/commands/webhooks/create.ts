import {Flags} from '@oclif/core'
import {arg} from '../../cli/flags/arg.js'
import type {WebhookEndpoint} from '../../client/client.js'
import {ApiCommand} from '../../cli/api-command.js'
import {renderCreatedEndpoint} from '../../cli/views/endpoint.js'
import {eventTypesFlag, eventTypesOf} from '../../cli/flags/event-types.js'
import {forwardToFlag, MISSING_FORWARD_TO} from '../../cli/flags/forward-to.js'
import {receiverUrlProblem} from '../../cli/receiver-url.js'
import {receiverRefused} from '../../cli/receiver-refused.js'

export default class WebhooksCreate extends ApiCommand<typeof WebhooksCreate> {
  static override summary = 'Register a webhook endpoint and print its signing secret.'

  static override description = `The server signs every delivery to --forward-to with the endpoint's secret (header X-Tablepay-Signature). \
The secret is printed now and never again: keep it where your receiver reads it.

The URL must be https; plain http is accepted for this machine (localhost, 127.0.0.1, [::1]) unless the server runs with --strict-urls.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> --forward-to http://localhost:3000/webhooks',
    {
      description: 'Only check lifecycle events',
      command:
        '<%= config.bin %> <%= command.id %> --forward-to https://pos.example.com/hooks -e check.created,check.updated,check.closed',
    },
    {
      description: 'Keep the secret in a variable',
      command:
        'SECRET=$(<%= config.bin %> <%= command.id %> --forward-to http://localhost:3000/hooks --json | jq -r .secret)',
    },
  ]

  // the URL as an argument: how it was given before --forward-to, the one receiver-URL flag (docs/cli.md)
  static override args = {URL: arg({description: 'Where deliveries are POSTed.', hidden: true})}

  static override flags = {
    'forward-to': forwardToFlag({summary: "Your receiver's URL: where deliveries are POSTed."}),
    'event-type': eventTypesFlag(),
    description: Flags.string({summary: 'A note for people reading the endpoint list.'}),
  }

  public async run(): Promise<WebhookEndpoint & {secret: string}> {
    const {'event-type': events, description} = this.flags
    const url = this.receiverUrl()
    const endpoint = await this.client
      .createWebhookEndpoint({url, event_types: eventTypesOf(events), description})
      .catch(receiverRefused(url))
    this.log(renderCreatedEndpoint(endpoint))
    return endpoint
  }

  private receiverUrl(): string {
    const {URL: argument} = this.args
    const flag = this.flags['forward-to']
    if (argument !== undefined && flag !== undefined && argument !== flag) {
      this.error(`Two receiver URLs: ${argument} and --forward-to ${flag}. Give one.`, {exit: 2, code: 'invalid_usage'})
    }
    const url = flag ?? argument
    if (url === undefined) {
      this.error(...MISSING_FORWARD_TO)
    }
    // --forward-to was checked as it was parsed; the argument is checked here, by the same rule
    const problem = flag === undefined ? receiverUrlProblem(url) : undefined
    if (problem) this.error(`"${url}" ${problem}`, {exit: 2, code: 'invalid_usage'})
    return url
  }
}
