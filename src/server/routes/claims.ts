import {defineEventHandler, type Router} from 'h3'
import {renderClaim} from '../../domain/claims.js'
import type {AppContext} from '../context.js'
import {claim} from '../guest-actions.js'
import {findOwned} from '../internal/owned.js'
import {findCheck, listOfCheck} from '../internal/owned.js'

/** Guests claiming items (simulated: on the real service this happens on the table page). */
export function claimRoutes(router: Router, app: AppContext): void {
  router.post(
    '/v1/sim/checks/:id/claims',
    defineEventHandler(async (event) => claim(app, event, await findCheck(app, event))),
  )

  router.get(
    '/v1/checks/:id/claims',
    defineEventHandler((event) => listOfCheck(app, event, 'claims', renderClaim)),
  )

  router.get(
    '/v1/claims/:id',
    defineEventHandler(async (event) => renderClaim(await findOwned(app, 'claims', event, 'claim'))),
  )
}
