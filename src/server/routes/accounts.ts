import {defineEventHandler, type Router, setResponseStatus} from 'h3'
import {scratchAccount} from '../../domain/accounts.js'
import {ApiError} from '../../domain/errors.js'
import type {CollectionName} from '../../domain/records.js'
import type {ScratchAccount} from '../../domain/schemas.js'
import {type Change, put} from '../../store/store.js'
import type {AppContext} from '../context.js'
import {accountOf} from '../internal/auth.js'
import {renderLocation} from './locations.js'

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
      const {id, name, created_at} = scratch.account
      return {
        id,
        object: 'account',
        name,
        scratch_of: parent.id,
        created_at,
        locations: scratch.locations.map(({record, copy_of}) => ({...renderLocation(record), copy_of})),
        api_keys: [{key: scratch.key.key, scopes: scratch.key.scopes}],
      }
    }),
  )

  router.delete(
    '/v1/sim/accounts/:id',
    defineEventHandler(async (event) => {
      const id = event.context.params?.id ?? ''
      if (accounts.get(id)?.scratch_of !== accountOf(event)) throw new ApiError('not_found', `No scratch account ${id} made by this account.`)
      // everything the account has goes in one commit: its keys stop working as its data disappears
      const changes = (Object.keys(store.tables) as CollectionName[]).flatMap((name) => store.tables[name].idsOf(id).map((recordId) => [name, recordId, null] as Change))
      await store.commit(changes)
      return {id, object: 'account', deleted: true}
    }),
  )
}
