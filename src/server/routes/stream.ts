import * as z from 'zod'
import {renderDelivery} from '../../domain/deliveries.js'
import {deletedEndpoint, endpointIdOf} from '../../domain/endpoints.js'
import {renderEvent} from '../../domain/events.js'
import {isRestore} from '../../domain/snapshots.js'
import {accountOf} from '../internal/auth.js'
import type {StreamMessageOut} from '../internal/event-stream.js'
import type {OperationSpec} from '../operations.js'

/**
 * Server-sent events of the caller's new events (`event: event`), delivery changes (`event: delivery`) and
 * deleted endpoints (`event: endpoint_deleted`); `reset` when a snapshot's restore rewrote the account. A scratch
 * account's stream ends with its deletion.
 */
export const streamOperations: OperationSpec[] = [
  {
    id: 'streamEvents',
    summary:
      'Server-sent events: `event` for each new event, `delivery` for each delivery change, `endpoint_deleted` for each deleted endpoint, `reset` on a restore',
    response: z.string(),
    contentType: 'text/event-stream',
    errors: ['rate_limited'],
    handler(event, {streams, service}) {
      const accountId = accountOf(event)
      // one topic per account: its dashboards and tails share each rendering
      return streams.open(event, {
        key: `account:${accountId}`,
        alive: async () => (await service.records.get('accounts', accountId)) !== undefined,
        ends: (changes) =>
          changes.some(([collection, id, record]) => collection === 'accounts' && id === accountId && !record),
        select: (changes) => {
          // a restore rewrites the account at once: one message says to read it again (docs/snapshots.md)
          if (isRestore(changes, accountId)) return [{event: 'reset', data: {object: 'reset', account_id: accountId}}]
          const messages: StreamMessageOut[] = []
          for (const [collection, id, record, owner] of changes) {
            // a deletion's key may not name the account: the change does (`Change`)
            if (collection === 'webhook_endpoints' && owner === accountId)
              messages.push({event: 'endpoint_deleted', data: deletedEndpoint(endpointIdOf(accountId, id))})
            if (!record || record.account_id !== accountId) continue
            if (collection === 'events') messages.push({event: 'event', data: renderEvent(record)})
            if (collection === 'deliveries') messages.push({event: 'delivery', data: renderDelivery(record)})
          }
          return messages
        },
      })
    },
  },
]
