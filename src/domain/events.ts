import {newId} from './ids.js'
import {becameFullyPaid} from './money.js'
import type {CheckRecord, EventRecord} from './records.js'
import type {Check, EventType} from './schemas.js'

/**
 * An event envelope (docs/api.md, "Resources"). `data` is the resource exactly as its GET
 * returns it at this moment: the caller passes the rendered resource.
 */
export function newEvent(accountId: string, type: EventType, data: object, now: string): EventRecord {
  return {
    id: newId('evt'),
    object: 'event',
    type,
    created_at: now,
    data: data as Record<string, unknown>,
    account_id: accountId,
  }
}

/** The public envelope of a stored event. */
export function renderEvent(record: EventRecord) {
  return {id: record.id, object: record.object, type: record.type, created_at: record.created_at, data: record.data}
}

/**
 * The check events of a change from `before` (undefined: a new check) to
 * `after`, whatever caused it (a push, a claim, a payment, a refund):
 * `check.created` or `check.updated`, `check.closed` on the transition to
 * closed (a check created closed gets both), and `check.fully_paid` when the
 * change made the amount paid reach the total. `data` is `after` rendered.
 */
export function checkChangeEvents(
  before: CheckRecord | undefined,
  after: CheckRecord,
  data: Check,
  now: string,
): EventRecord[] {
  const types: EventType[] = [before === undefined ? 'check.created' : 'check.updated']
  if (after.status === 'closed' && before?.status !== 'closed') types.push('check.closed')
  if (before && becameFullyPaid(before, after)) types.push('check.fully_paid')
  return types.map((type) => newEvent(after.account_id, type, data, now))
}
