import type {Collections} from '../domain/records.js'
import {endpointKey} from '../domain/endpoints.js'
import {Table} from './table.js'

/** The fields an unread delivery knows (unread.ts): its event, which groups it, and what filters ask, its endpoint and status. */
const DELIVERY_FIELDS: readonly string[] = ['endpoint_id', 'event_id', 'status']

/** The scope of the alternate keys that find a check by the token of its guest link; an account id never is it. */
export const GUEST_SCOPE = 'guest'

/** The store's tables, one per collection, and how each finds and keeps its records. */
export function tables() {
  return {
    accounts: new Table<Collections['accounts']>((r) => r.id),
    api_keys: new Table<Collections['api_keys']>((r) => r.key),
    locations: new Table<Collections['locations']>((r) => r.id),
    checks: new Table<Collections['checks']>((r) => r.id, {
      // by its caller's id within its account, and by its guest token
      alternateKeysOf: (r) => [
        [r.account_id, r.external_id],
        [GUEST_SCOPE, r.guest_token],
      ],
    }),
    claims: new Table<Collections['claims']>((r) => r.id),
    payments: new Table<Collections['payments']>((r) => r.id),
    feedback: new Table<Collections['feedback']>((r) => r.id),
    idempotency_keys: new Table<Collections['idempotency_keys']>((r) => r.id),
    // most events are never read again after a start: they stay unparsed until asked for (unread.ts)
    events: new Table<Collections['events']>((r) => r.id, {readOnDemand: true}),
    webhook_endpoints: new Table<Collections['webhook_endpoints']>(endpointKey),
    // retention deletes an event with its deliveries, and keeps one whose delivery is pending; a delivery
    // stays unparsed, as an event does, knowing what groups and filters it (a start looks for the pending ones)
    deliveries: new Table<Collections['deliveries']>((r) => r.id, {
      groupBy: 'event_id',
      readOnDemand: true,
      unreadFields: DELIVERY_FIELDS,
    }),
    settings: new Table<Collections['settings']>((r) => r.id),
    fan_outs: new Table<Collections['fan_outs']>((r) => r.id),
    // a snapshot holds megabytes of records: kept as its JSON, read when restored or exported (docs/storage.md)
    snapshots: new Table<Collections['snapshots']>((r) => r.id, {readOnDemand: true, keptAsJson: true}),
  }
}
export type Tables = ReturnType<typeof tables>
