import {defineEventHandler, type Router} from 'h3'
import {renderLocation} from '../../domain/locations.js'
import type {AppContext} from '../context.js'
import {accountOf} from '../internal/auth.js'
import {paginate, readListQuery} from '../internal/list.js'

export function locationRoutes(router: Router, {store}: AppContext): void {
  const {locations} = store.tables
  router.get(
    '/v1/locations',
    defineEventHandler((event) => {
      const query = readListQuery(event)
      return paginate(locations.idsOf(accountOf(event)), (id) => locations.get(id), query, () => true, renderLocation)
    }),
  )
}
