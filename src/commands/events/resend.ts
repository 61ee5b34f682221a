import {Args, Flags} from '@oclif/core'
import type {Delivery} from '../../client/client.js'
import {ApiCommand} from '../../cli/api-command.js'
import {renderDeliveryDetail} from '../../cli/views/delivery.js'

export default class EventsResend extends ApiCommand<typeof EventsResend> {
  static override summary = 'Send an event again to one endpoint, now.'

  static override description = `A new delivery of the event, with the same body bytes and event id, attempted at once. \
The endpoint must be enabled and take the event's type.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> evt_4f0b6k2m9q1x8s7d3a5z --endpoint we_4f0b6k2m9q1x8s7d3a5z',
  ]

  static override args = {ID: Args.string({description: 'Event id (evt_…).', required: true})}

  static override flags = {
    endpoint: Flags.string({helpValue: 'ID', summary: 'Endpoint to send it to (we_…).', required: true}),
  }

  public async run(): Promise<Delivery> {
    const delivery = await this.client.resendEvent(this.args.ID, this.flags.endpoint)
    this.log(renderDeliveryDetail(delivery))
    return delivery
  }
}
