import {defineEventHandler, type Router, setResponseStatus} from 'h3'
import {applyClaim, renderClaim} from '../../domain/claims.js'
import {ClaimInput} from '../../domain/schemas.js'
import {put} from '../../store/store.js'
import type {AppContext} from '../context.js'
import {readJson} from '../internal/body.js'
import {paginate, readListQuery} from '../internal/list.js'
import {findOwned} from '../internal/owned.js'
import {findCheck} from './checks.js'

/** Guests claiming items (simulated: on the real service this happens on the table page). */
export function claimRoutes(router: Router, app: AppContext): void {
  const {store} = app
  const {claims} = store.tables

  router.post(
    '/v1/sim/checks/:id/claims',
    defineEventHandler(async (event) => {
      const input = await readJson(event, ClaimInput)
      const outcome = applyClaim(findCheck(app, event), input, app.now(), app.baseUrl)
      await store.commit([put('checks', outcome.check.id, outcome.check), put('claims', outcome.claim.id, outcome.claim), ...app.outbox(outcome.events)])
      setResponseStatus(event, 201)
      return renderClaim(outcome.claim)
    }),
  )

  router.get(
    '/v1/checks/:id/claims',
    defineEventHandler((event) => {
      const check = findCheck(app, event)
      const query = readListQuery(event)
      return paginate(claims.idsOf(check.account_id), (id) => claims.get(id), query, (c) => c.check_id === check.id, renderClaim)
    }),
  )

  router.get(
    '/v1/claims/:id',
    defineEventHandler((event) => renderClaim(findOwned(claims, event, 'claim'))),
  )
}
