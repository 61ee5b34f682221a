import {defineEventHandler, type Router, setResponseStatus} from 'h3'
import type {ScratchAccount} from '../../domain/schemas.js'
import type {AppContext} from '../context.js'
import {accountOf} from '../internal/auth.js'

/**
 * Scratch accounts, a simulator control: there is no account API, but a tool
 * that must run something in isolation (`checks replay`) needs fresh
 * accounts that resolve the same locations. Only the account that made one
 * may delete it.
 */
export function accountRoutes(router: Router, {service}: AppContext): void {
  router.post(
    '/v1/sim/accounts',
    defineEventHandler(async (event): Promise<ScratchAccount> => {
      const scratch = await service.accounts.createScratch(accountOf(event))
      setResponseStatus(event, 201)
      return scratch
    }),
  )

  router.delete(
    '/v1/sim/accounts/:id',
    defineEventHandler(async (event) => {
      const id = event.context.params?.id ?? ''
      await service.accounts.deleteScratch(accountOf(event), id)
      return {id, object: 'account', deleted: true}
    }),
  )
}
