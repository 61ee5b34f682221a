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
 * A guest rates the visit. Accepted whatever the check's status: guests
 * leave feedback after the bill is closed, and a voided check was still a
 * visit. Any number per check (one per guest). The check does not change.
 */
export function applyFeedback(
  check: CheckRecord,
  input: FeedbackInput,
  now: string,
): {feedback: FeedbackRecord; events: EventRecord[]} {
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
