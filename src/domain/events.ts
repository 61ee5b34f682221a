import {newId} from './ids.js'
import type {EventRecord} from './records.js'
import type {EventType} from './schemas.js'

/**
 * An event envelope (SPEC 2). `data` is the resource exactly as its GET
 * returns it at this moment: the caller passes the rendered resource.
 */
export function newEvent(accountId: string, type: EventType, data: object, now: string): EventRecord {
  return {id: newId('evt'), object: 'event', type, created_at: now, data: data as Record<string, unknown>, account_id: accountId}
}

/** The public envelope of a stored event. */
export function renderEvent(record: EventRecord) {
  return {id: record.id, object: record.object, type: record.type, created_at: record.created_at, data: record.data}
}

type CheckStatus = 'open' | 'closed' | 'voided'

/**
 * Which check events a push produces: `check.created` for a new check,
 * `check.updated` for a later material change, and `check.closed` on the
 * transition to closed (a check created closed gets both).
 */
export function checkEventTypes(before: CheckStatus | undefined, after: CheckStatus): EventType[] {
  const types: EventType[] = [before === undefined ? 'check.created' : 'check.updated']
  if (after === 'closed' && before !== 'closed') types.push('check.closed')
  return types
}
