import {createEventStream, defineEventHandler, type Router} from 'h3'
import {renderDelivery} from '../../domain/deliveries.js'
import {renderEvent} from '../../domain/events.js'
import type {AppContext} from '../context.js'
import {accountOf} from '../internal/auth.js'

/** Server-sent events of the caller's new events (`event: event`) and delivery changes (`event: delivery`). */
export function streamRoutes(router: Router, {store}: AppContext): void {
  router.get(
    '/v1/sim/stream',
    defineEventHandler(async (event) => {
      const accountId = accountOf(event)
      const stream = createEventStream(event)
      const unsubscribe = store.subscribe((changes) => {
        for (const [collection, , record] of changes) {
          if (!record || record.account_id !== accountId) continue
          if (collection === 'events') void stream.push({event: 'event', data: JSON.stringify(renderEvent(record))})
          if (collection === 'deliveries') void stream.push({event: 'delivery', data: JSON.stringify(renderDelivery(record))})
        }
      })
      stream.onClosed(() => unsubscribe())
      return stream.send()
    }),
  )
}
