import {defineEventHandler, type Router, setResponseStatus} from 'h3'
import * as z from 'zod'
import {renderDelivery} from '../../domain/deliveries.js'
import {renderEvent} from '../../domain/events.js'
import {EventType, ResendInput} from '../../domain/schemas.js'
import type {AppContext} from '../context.js'
import {accountOf} from '../internal/auth.js'
import {readJson} from '../internal/body.js'
import {paginate, readListQuery} from '../internal/list.js'
import {findOwned} from '../internal/owned.js'

/** The filters of `GET /events`, besides the list query. */
export const EventFilters = z.object({type: EventType.optional()})

export function eventRoutes(router: Router, app: AppContext): void {
  router.get(
    '/v1/events',
    defineEventHandler((event) => {
      const query = readListQuery(event, EventFilters)
      return paginate(app.service.records, 'events', accountOf(event), query, {type: query.type}, renderEvent)
    }),
  )

  router.get(
    '/v1/events/:id',
    defineEventHandler(async (event) => renderEvent(await findOwned(app, 'events', event, 'event'))),
  )

  // a new delivery of the same body bytes to one endpoint, attempted now (docs/api.md, "Webhooks")
  router.post(
    '/v1/events/:id/resend',
    defineEventHandler(async (event) => {
      const found = await findOwned(app, 'events', event, 'event')
      const {endpoint_id} = await readJson(event, ResendInput)
      const delivery = await app.service.deliveries.resend(found, endpoint_id)
      setResponseStatus(event, 201)
      return renderDelivery(delivery)
    }),
  )
}
