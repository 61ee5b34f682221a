import {renderFeedback} from '../../domain/feedback.js'
import {Feedback, FeedbackInput} from '../../domain/schemas.js'
import {leaveFeedback} from '../guest-actions.js'
import {findCheck, findOwned, listOfCheck} from '../internal/owned.js'
import type {OperationSpec} from '../operations.js'

/** Guests rating their visit (simulated: on the real service this happens on the table page). */
export const feedbackOperations: OperationSpec[] = [
  {
    id: 'simulateFeedback',
    summary: 'Simulate a guest leaving feedback',
    body: FeedbackInput,
    response: Feedback,
    status: [201],
    idempotent: true,
    errors: ['check_not_open'],
    handler: async (event, app) => leaveFeedback(app, event, await findCheck(app, event)),
  },
  {
    id: 'listCheckFeedback',
    summary: "The check's feedback",
    response: Feedback,
    list: true,
    handler: (event, app) => listOfCheck(app, event, 'feedback', renderFeedback),
  },
  {
    id: 'getFeedback',
    summary: 'A feedback',
    response: Feedback,
    handler: async (event, app) => renderFeedback(await findOwned(app, 'feedback', event, 'feedback')),
  },
]
