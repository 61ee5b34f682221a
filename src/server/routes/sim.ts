import {defineEventHandler, type Router} from 'h3'
import type {AppContext} from '../context.js'
import {keyHint} from '../../domain/request-log.js'
import type {KeyInfo} from '../../domain/schemas.js'
import {accountOf, apiKeyOf} from '../internal/auth.js'

/** Simulator controls that the real service does not have. */
export function simRoutes(router: Router, {service}: AppContext): void {
  // the dashboard asks what its key may do instead of trying a write
  router.get(
    '/v1/sim/key',
    defineEventHandler((event): KeyInfo => {
      const {key, scopes, account_id} = apiKeyOf(event)
      return {object: 'api_key', account_id, scopes, key_hint: keyHint(key)}
    }),
  )

  router.post(
    '/v1/sim/reset',
    defineEventHandler(async (event) => {
      const deleted = await service.sim.reset(accountOf(event))
      return {object: 'reset', deleted}
    }),
  )
}
