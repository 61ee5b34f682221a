import {defineEventHandler, type Router} from 'h3'
import type {CollectionName} from '../../domain/records.js'
import {type Change, deleteAllOf} from '../../store/store.js'
import type {AppContext} from '../context.js'
import {accountOf} from '../internal/auth.js'

/** What a reset clears; keys and locations stay so the caller's configuration keeps working. */
const RESET: CollectionName[] = ['checks', 'claims', 'payments', 'feedback', 'idempotency_keys', 'events', 'deliveries']

/** Simulator controls that the real service does not have. */
export function simRoutes(router: Router, {store}: AppContext): void {
  router.post(
    '/v1/sim/reset',
    defineEventHandler(async (event) => {
      const accountId = accountOf(event)
      const deleted: Record<string, number> = {}
      const changes: Change[] = []
      for (const name of RESET) {
        const deletions = deleteAllOf(store, name, accountId)
        deleted[name] = deletions.length
        changes.push(...deletions)
      }
      await store.commit(changes)
      return {object: 'reset', deleted}
    }),
  )
}
