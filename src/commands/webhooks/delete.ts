import {arg} from '../../cli/flags/arg.js'
import type {Deleted} from '../../client/client.js'
import {ApiCommand} from '../../cli/api-command.js'

export default class WebhooksDelete extends ApiCommand<typeof WebhooksDelete> {
  static override summary = 'Delete a webhook endpoint.'

  static override description = 'Nothing more is sent to it: its pending deliveries are canceled.'

  static override examples = ['<%= config.bin %> <%= command.id %> we_4f0b6k2m9q1x8s7d3a5z']

  static override args = {ID: arg({description: 'Endpoint id (we_…).', required: true})}

  public async run(): Promise<Deleted> {
    const deleted = await this.client.deleteWebhookEndpoint(this.args.ID)
    this.log(`deleted ${deleted.id}`)
    return deleted
  }
}
