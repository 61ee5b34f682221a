import {guestsMayAct} from './check.js'
import {newEvent} from './events.js'
import {newId} from './ids.js'
import type {CheckRecord, EventRecord, FeedbackRecord} from './records.js'
import type {Feedback, FeedbackInput} from './schemas.js'

/** The public feedback resource of a record. */
export function renderFeedback(record: FeedbackRecord): Feedback {
  return {
    id: record.id,
    object: 'feedback',
    check_id: record.check_id,
    rating: record.rating,
    comment: record.comment,
    created_at: record.created_at,
  }
}

/**
 * A guest rates the visit while the check is open (409 otherwise, as every
 * guest action: docs/api.md, "The guest side"). Any number per check (one per
 * guest). The check does not change.
 */
export function applyFeedback(
  check: CheckRecord,
  input: FeedbackInput,
  now: string,
): {feedback: FeedbackRecord; events: EventRecord[]} {
  guestsMayAct(check, 'leave feedback on')
  const feedback: FeedbackRecord = {
    id: newId('fb'),
    object: 'feedback',
    check_id: check.id,
    rating: input.rating,
    comment: input.comment ?? null,
    created_at: now,
    account_id: check.account_id,
  }
  return {feedback, events: [newEvent(check.account_id, 'feedback.received', renderFeedback(feedback), now)]}
}
