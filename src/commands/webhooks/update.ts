import {Flags} from '@oclif/core'
import {arg} from '../../cli/flags/arg.js'
import type {WebhookEndpoint} from '../../client/client.js'
import {ApiCommand} from '../../cli/api-command.js'
import {eventTypesFlag} from '../../cli/flags/event-types.js'
import {EVENT_TYPES} from '../../domain/constants.js'
import {renderEndpoint} from '../../cli/views/endpoint.js'
import {forwardToFlag} from '../../cli/flags/forward-to.js'
import {receiverRefused} from '../../cli/receiver-refused.js'

export default class WebhooksUpdate extends ApiCommand<typeof WebhooksUpdate> {
  static override summary = "Change an endpoint's URL, event types or description."

  static override description = `Only what is given changes; the URL and event types follow the rules of \`webhooks create\`. \
The secret stays (see \`webhooks rotate-secret\`), and a disabled endpoint stays disabled.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> we_4f0b6k2m9q1x8s7d3a5z --forward-to http://localhost:4000/webhooks',
    '<%= config.bin %> <%= command.id %> we_4f0b6k2m9q1x8s7d3a5z -e check.created,check.closed',
  ]

  static override args = {ID: arg({description: 'Endpoint id (we_…).', required: true})}

  static override flags = {
    'forward-to': forwardToFlag({summary: "Your receiver's new URL."}),
    'event-type': eventTypesFlag({
      summary: `The event types to receive instead, comma-separated (${EVENT_TYPES.join(', ')}).`,
    }),
    description: Flags.string({summary: 'A note for people reading the endpoint list.'}),
  }

  public async run(): Promise<WebhookEndpoint> {
    const {'forward-to': url, 'event-type': types, description} = this.flags
    if (url === undefined && types === undefined && description === undefined)
      this.error('Nothing to change: pass --forward-to, --event-type or --description.', {
        exit: 2,
        code: 'invalid_usage',
      })
    const endpoint = await this.client
      .updateWebhookEndpoint(this.args.ID, {url, event_types: types ? [...new Set(types)] : undefined, description})
      .catch(receiverRefused(url))
    this.log(renderEndpoint(endpoint))
    return endpoint
  }
}
