import {Args} from '@oclif/core'
import type {Delivery} from '../../client/client.js'
import {BaseCommand} from '../../lib/base-command.js'
import {renderDeliveryDetail} from '../../lib/delivery-view.js'

export default class DeliveriesRetry extends BaseCommand<typeof DeliveriesRetry> {
  static override summary = 'Send a delivery again now.'

  static override description = `Queues one more attempt at once, whatever the delivery's state (a dead one too), keeping its attempts so far. \
If that attempt fails, the retry schedule continues from where the delivery was. Watch it with \`deliveries tail\`.`

  static override examples = ['<%= config.bin %> <%= command.id %> dlv_4f0b6k2m9q1x8s7d3a5z']

  static override args = {ID: Args.string({description: 'Delivery id (dlv_…).', required: true})}

  public async run(): Promise<Delivery> {
    const delivery = await this.client.retryDelivery(this.args.ID)
    this.log(renderDeliveryDetail(delivery))
    return delivery
  }
}
