import {defineEventHandler, type Router} from 'h3'
import {renderDelivery} from '../../domain/deliveries.js'
import {renderEvent} from '../../domain/events.js'
import type {AppContext} from '../context.js'
import {accountOf} from '../internal/auth.js'
import type {StreamMessageOut} from '../internal/event-stream.js'

/** Server-sent events of the caller's new events (`event: event`) and delivery changes (`event: delivery`). */
export function streamRoutes(router: Router, app: AppContext): void {
  router.get(
    '/v1/sim/stream',
    defineEventHandler((event) => {
      const accountId = accountOf(event)
      // one topic per account: its dashboards and tails share each rendering
      return app.streams.open(event, {
        key: `account:${accountId}`,
        select: (changes) => {
          const messages: StreamMessageOut[] = []
          for (const [collection, , record] of changes) {
            if (!record || record.account_id !== accountId) continue
            if (collection === 'events') messages.push({event: 'event', data: renderEvent(record)})
            if (collection === 'deliveries') messages.push({event: 'delivery', data: renderDelivery(record)})
          }
          return messages
        },
      })
    }),
  )
}
