import {defineEventHandler, type Router} from 'h3'
import type {AppContext} from '../context.js'
import {accountOf} from '../internal/auth.js'

/** Simulator controls that the real service does not have. */
export function simRoutes(router: Router, {service}: AppContext): void {
  router.post(
    '/v1/sim/reset',
    defineEventHandler(async (event) => {
      const deleted = await service.sim.reset(accountOf(event))
      return {object: 'reset', deleted}
    }),
  )
}
