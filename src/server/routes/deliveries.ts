import * as z from 'zod'
import {renderDelivery} from '../../domain/deliveries.js'
import {DELIVERY_STATUSES, Delivery} from '../../domain/schemas.js'
import {accountOf} from '../internal/auth.js'
import {paginate, readListQuery} from '../internal/list.js'
import {findOwned} from '../internal/owned.js'
import type {OperationSpec} from '../operations.js'

/** The filters of `GET /deliveries`, besides the list query. */
export const DeliveryFilters = z.object({
  // empty, as checks' location_id: refused
  endpoint_id: z.string().min(1).optional(),
  event_id: z.string().min(1).optional(),
  status: z.enum(DELIVERY_STATUSES).optional(),
})

export const deliveryOperations: OperationSpec[] = [
  {
    id: 'listDeliveries',
    summary: 'Deliveries, newest first',
    response: Delivery,
    list: true,
    filters: DeliveryFilters,
    handler(event, {service}) {
      const q = readListQuery(event, DeliveryFilters)
      const where = {endpoint_id: q.endpoint_id, event_id: q.event_id, status: q.status}
      return paginate(service.records, 'deliveries', accountOf(event), q, where, renderDelivery)
    },
  },
  {
    id: 'getDelivery',
    summary: 'A delivery with every attempt',
    response: Delivery,
    handler: async (event, app) => renderDelivery(await findOwned(app, 'deliveries', event, 'delivery')),
  },
  // one more attempt now, whatever the delivery's state; its attempts so far are kept
  {
    id: 'retryDelivery',
    summary: 'Queue one more attempt now',
    response: Delivery,
    errors: ['endpoint_disabled', 'event_type_not_subscribed'],
    async handler(event, app) {
      const delivery = await app.service.deliveries.retry(await findOwned(app, 'deliveries', event, 'delivery'))
      return renderDelivery(delivery)
    },
  },
]
