import {defineEventHandler, type Router} from 'h3'
import {renderFeedback} from '../../domain/feedback.js'
import type {AppContext} from '../context.js'
import {leaveFeedback} from '../guest-actions.js'
import {findOwned} from '../internal/owned.js'
import {findCheck, listOfCheck} from '../internal/owned.js'

/** Guests rating their visit (simulated: on the real service this happens on the table page). */
export function feedbackRoutes(router: Router, app: AppContext): void {
  router.post(
    '/v1/sim/checks/:id/feedback',
    defineEventHandler(async (event) => leaveFeedback(app, event, await findCheck(app, event))),
  )

  router.get(
    '/v1/checks/:id/feedback',
    defineEventHandler((event) => listOfCheck(app, event, 'feedback', renderFeedback)),
  )

  router.get(
    '/v1/feedback/:id',
    defineEventHandler(async (event) => renderFeedback(await findOwned(app, 'feedback', event, 'feedback'))),
  )
}
