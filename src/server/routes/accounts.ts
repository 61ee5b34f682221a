import {defineEventHandler, type Router, setResponseStatus} from 'h3'
import {renderScratchAccount, scratchAccount} from '../../domain/accounts.js'
import {ApiError} from '../../domain/errors.js'
import type {CollectionName} from '../../domain/records.js'
import type {ScratchAccount} from '../../domain/schemas.js'
import {deleteAllOf, put} from '../../store/store.js'
import type {AppContext} from '../context.js'
import {accountOf} from '../internal/auth.js'

/**
 * Scratch accounts, a simulator control: there is no account API, but a tool
 * that must run something in isolation (`checks replay`) needs fresh
 * accounts that resolve the same locations. Only the account that made one
 * may delete it.
 */
export function accountRoutes(router: Router, {store, now}: AppContext): void {
  const {accounts, locations} = store.tables

  router.post(
    '/v1/sim/accounts',
    defineEventHandler(async (event): Promise<ScratchAccount> => {
      const parent = accounts.get(accountOf(event))!
      const scratch = scratchAccount(parent, locations.idsOf(parent.id).map((id) => locations.get(id)!), now())
      await store.commit([
        put('accounts', scratch.account.id, scratch.account),
        ...scratch.locations.map(({record}) => put('locations', record.id, record)),
        put('api_keys', scratch.key.key, scratch.key),
      ])
      setResponseStatus(event, 201)
      return renderScratchAccount(scratch)
    }),
  )

  router.delete(
    '/v1/sim/accounts/:id',
    defineEventHandler(async (event) => {
      const id = event.context.params?.id ?? ''
      if (accounts.get(id)?.scratch_of !== accountOf(event)) throw new ApiError('not_found', `No scratch account ${id} made by this account.`)
      // the scratch accounts it made go with it, else nobody could delete them
      const doomed = [id]
      for (let i = 0; i < doomed.length; i++) doomed.push(...[...accounts.all()].filter((a) => a.scratch_of === doomed[i]).map((a) => a.id))
      // everything they have goes in one commit: their keys stop working as their data disappears
      const names = Object.keys(store.tables) as CollectionName[]
      const changes = doomed.flatMap((account) => names.flatMap((name) => deleteAllOf(store, name, account)))
      await store.commit(changes)
      return {id, object: 'account', deleted: true}
    }),
  )
}
