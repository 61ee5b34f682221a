import {setResponseStatus} from 'h3'
import * as z from 'zod'
import {renderDelivery} from '../../domain/deliveries.js'
import {renderEvent} from '../../domain/events.js'
import {Delivery, EventType, ResendInput} from '../../domain/schemas.js'
import {accountOf} from '../internal/auth.js'
import {readJson} from '../internal/body.js'
import {paginate, readListQuery} from '../internal/list.js'
import {findOwned} from '../internal/owned.js'
import type {OperationSpec} from '../operations.js'
import {TypedEvent} from '../schemas.js'

/** The filters of `GET /events`, besides the list query. */
export const EventFilters = z.object({type: EventType.optional()})

export const eventOperations: OperationSpec[] = [
  {
    id: 'listEvents',
    summary: 'Events, newest first',
    response: TypedEvent,
    list: true,
    filters: EventFilters,
    handler(event, {service}) {
      const query = readListQuery(event, EventFilters)
      return paginate(service.records, 'events', accountOf(event), query, {type: query.type}, renderEvent)
    },
  },
  {
    id: 'getEvent',
    summary: 'An event envelope',
    response: TypedEvent,
    handler: async (event, app) => renderEvent(await findOwned(app, 'events', event, 'event')),
  },
  // a new delivery of the same body bytes to one endpoint, attempted now (docs/api.md, "Webhooks")
  {
    id: 'resendEvent',
    summary: 'A new delivery of the event to one endpoint, now',
    body: ResendInput,
    response: Delivery,
    status: [201],
    errors: ['event_type_not_subscribed', 'endpoint_disabled'],
    async handler(event, app) {
      const found = await findOwned(app, 'events', event, 'event')
      const {endpoint_id} = await readJson(event, ResendInput)
      const delivery = await app.service.deliveries.resend(found, endpoint_id)
      setResponseStatus(event, 201)
      return renderDelivery(delivery)
    },
  },
]
