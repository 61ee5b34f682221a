import {defineEventHandler, type Router} from 'h3'
import {z} from 'zod'
import {renderEvent} from '../../domain/events.js'
import {EventType} from '../../domain/schemas.js'
import type {AppContext} from '../context.js'
import {accountOf} from '../internal/auth.js'
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
}
