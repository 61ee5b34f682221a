import {arg} from '../../cli/flags/arg.js'
import type {Recovery} from '../../client/client.js'
import {ApiCommand} from '../../cli/api-command.js'
import {pastDuration} from '../../cli/flags/duration.js'
import {renderRecovery} from '../../cli/views/endpoint.js'

export default class WebhooksRecover extends ApiCommand<typeof WebhooksRecover> {
  static override summary = 'Deliver again what an endpoint missed since a time.'

  static override description = `Every event created in the last --since, of a type the endpoint takes, that no delivery to it has succeeded for, \
is delivered again now, oldest first: after your receiver was down, or answered errors, for a while.`

  static override examples = ['<%= config.bin %> <%= command.id %> we_4f0b6k2m9q1x8s7d3a5z --since 2h']

  static override args = {ID: arg({description: 'Endpoint id (we_…).', required: true})}

  static override flags = {
    since: pastDuration({helpValue: 'DURATION', summary: 'How far back: 30m, 2h, 1d.', required: true}),
  }

  public async run(): Promise<Recovery> {
    const since = new Date(Date.now() - this.flags.since * 1000).toISOString()
    const recovery = await this.client.recoverWebhookEndpoint(this.args.ID, since)
    this.log(renderRecovery(recovery))
    return recovery
  }
}
