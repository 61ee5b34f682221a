import {defineEventHandler, type Router} from 'h3'
import {z} from 'zod'
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
      const keep = (d: {endpoint_id: string; event_id: string; status: string}) =>
        (q.endpoint_id === undefined || d.endpoint_id === q.endpoint_id) &&
        (q.event_id === undefined || d.event_id === q.event_id) &&
        (q.status === undefined || d.status === q.status)
      const {ids, get} = app.service.records.listing('deliveries', accountOf(event))
      return paginate(ids, get, q, keep, renderDelivery)
    }),
  )

  router.get(
    '/v1/deliveries/:id',
    defineEventHandler((event) => renderDelivery(findOwned(app, 'deliveries', event, 'delivery'))),
  )

  // one more attempt now, whatever the delivery's state; its attempts so far are kept
  router.post(
    '/v1/deliveries/:id/retry',
    defineEventHandler(async (event) => {
      const delivery = await app.service.deliveries.retry(findOwned(app, 'deliveries', event, 'delivery'))
      return renderDelivery(delivery)
    }),
  )
}
