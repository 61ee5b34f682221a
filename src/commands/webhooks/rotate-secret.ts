import {arg} from '../../cli/flags/arg.js'
import type {WebhookEndpoint} from '../../client/client.js'
import {ApiCommand} from '../../cli/api-command.js'
import {secondsUpTo} from '../../cli/flags/duration.js'
import {renderRotatedEndpoint} from '../../cli/views/endpoint.js'

const DAY = 86_400

export default class WebhooksRotateSecret extends ApiCommand<typeof WebhooksRotateSecret> {
  static override summary = 'Give an endpoint a new signing secret; the old one keeps signing for a while.'

  static override description = `Prints the new secret, this once. Until --expire-after has passed on the scheduler clock (default 24h, at most 24h) \
every delivery carries two v1 signatures, one with each secret, so a receiver keeps verifying while you deploy the new one; then only the new one signs.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> we_4f0b6k2m9q1x8s7d3a5z',
    {
      description: 'Retire the old secret in an hour',
      command: '<%= config.bin %> <%= command.id %> we_4f0b6k2m9q1x8s7d3a5z --expire-after 1h',
    },
  ]

  static override args = {ID: arg({description: 'Endpoint id (we_…).', required: true})}

  static override flags = {
    // whole seconds, as the API takes them: `1ms` rounded to 0 would end the old secret at once
    'expire-after': secondsUpTo(DAY)({summary: 'How long the old secret keeps signing (0 to 24h, default 24h).'}),
  }

  public async run(): Promise<WebhookEndpoint & {secret: string}> {
    const expire = this.flags['expire-after'] ?? DAY
    const endpoint = await this.client.rotateWebhookSecret(this.args.ID, {expire_after_s: expire})
    this.log(renderRotatedEndpoint(endpoint, expire))
    return endpoint
  }
}
