import {arg} from '../../cli/flags/arg.js'
import type {Delivery} from '../../client/client.js'
import {ApiCommand} from '../../cli/api-command.js'
import {renderDeliveryDetail} from '../../cli/views/delivery.js'

export default class DeliveriesGet extends ApiCommand<typeof DeliveriesGet> {
  static override summary = 'Show a delivery with every attempt.'

  static override description =
    'Each attempt with when it was made, when it was due on the scheduler clock, the answer, its duration and the error; --json adds the first 4 KiB of each answer.'

  static override examples = ['<%= config.bin %> <%= command.id %> dlv_4f0b6k2m9q1x8s7d3a5z']

  static override args = {ID: arg({description: 'Delivery id (dlv_…).', required: true})}

  public async run(): Promise<Delivery> {
    const delivery = await this.client.getDelivery(this.args.ID)
    this.log(renderDeliveryDetail(delivery))
    return delivery
  }
}
