import type {List, WebhookEndpoint} from '../../client/client.js'
import {ApiCommand} from '../../cli/api-command.js'
import {renderEndpointList} from '../../cli/views/endpoint.js'
import {pageFlags, pageParams} from '../../cli/flags/page.js'
import {renderPage} from '../../cli/views/page.js'

export default class WebhooksList extends ApiCommand<typeof WebhooksList> {
  static override summary = 'List webhook endpoints, newest first.'

  static override description =
    'Each endpoint with its status (a disabled one receives nothing: register a new one), its event types and its URL. Secrets are never shown again.'

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    {description: 'As JSON', command: '<%= config.bin %> <%= command.id %> --json'},
  ]

  static override flags = pageFlags('endpoints')

  public async run(): Promise<List<WebhookEndpoint>> {
    const page = await this.client.listWebhookEndpoints(pageParams(this.flags))
    this.log(renderPage(page, renderEndpointList, 'webhook endpoints', this.nextPage))
    return page
  }
}
