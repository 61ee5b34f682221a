import {defineEventHandler, type Router} from 'h3'
import * as z from 'zod'
import {renderDelivery} from '../../domain/deliveries.js'
import {DELIVERY_STATUSES} from '../../domain/schemas.js'
import type {AppContext} from '../context.js'
import {accountOf} from '../internal/auth.js'
import {paginate, readListQuery} from '../internal/list.js'
import {findOwned} from '../internal/owned.js'

/** The filters of `GET /deliveries`, besides the list query. */
export const DeliveryFilters = z.object({
  endpoint_id: z.string().optional(),
  event_id: z.string().optional(),
  status: z.enum(DELIVERY_STATUSES).optional(),
})

export function deliveryRoutes(router: Router, app: AppContext): void {
  router.get(
    '/v1/deliveries',
    defineEventHandler((event) => {
      const q = readListQuery(event, DeliveryFilters)
      const where = {endpoint_id: q.endpoint_id, event_id: q.event_id, status: q.status}
      return paginate(app.service.records, 'deliveries', accountOf(event), q, where, renderDelivery)
    }),
  )

  router.get(
    '/v1/deliveries/:id',
    defineEventHandler(async (event) => renderDelivery(await findOwned(app, 'deliveries', event, 'delivery'))),
  )

  // one more attempt now, whatever the delivery's state; its attempts so far are kept
  router.post(
    '/v1/deliveries/:id/retry',
    defineEventHandler(async (event) => {
      const delivery = await app.service.deliveries.retry(await findOwned(app, 'deliveries', event, 'delivery'))
      return renderDelivery(delivery)
    }),
  )
}
