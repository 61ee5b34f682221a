import {Flags} from '@oclif/core'
import type {Delivery, List} from '../../client/client.js'
import {DELIVERY_STATUSES} from '../../domain/constants.js'
import {ApiCommand} from '../../cli/api-command.js'
import {renderDeliveryList} from '../../cli/views/delivery.js'
import {pageFlags, pageParams} from '../../cli/flags/page.js'
import {renderPage} from '../../cli/views/page.js'
import {textFlag} from '../../cli/flags/filter.js'

export default class DeliveriesList extends ApiCommand<typeof DeliveriesList> {
  static override summary = 'List webhook deliveries, newest first.'

  static override description = `One delivery per event and endpoint, with its status: pending (waiting for its next attempt), \
succeeded, dead (every retry failed), canceled (its endpoint was deleted or disabled) \
or superseded (another delivery of its event to its endpoint succeeded: a resend's, a recovery's). \`deliveries get\` shows every attempt.`

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    {description: 'What is still waiting for a retry', command: '<%= config.bin %> <%= command.id %> --status pending'},
    {
      description: 'Deliveries of one event',
      command: '<%= config.bin %> <%= command.id %> --event evt_4f0b6k2m9q1x8s7d3a5z',
    },
  ]

  static override flags = {
    ...pageFlags('deliveries'),
    endpoint: textFlag({summary: 'Only deliveries to this endpoint (we_…).'}),
    event: textFlag({summary: 'Only deliveries of this event (evt_…).'}),
    status: Flags.option({summary: 'Only deliveries with this status.', options: DELIVERY_STATUSES})(),
  }

  public async run(): Promise<List<Delivery>> {
    const {endpoint, event, status} = this.flags
    const page = await this.client.listDeliveries({
      ...pageParams(this.flags),
      endpoint_id: endpoint,
      event_id: event,
      status,
    })
    this.log(renderPage(page, renderDeliveryList, 'deliveries', this.nextPage))
    return page
  }
}
