import {defineEventHandler, type Router} from 'h3'
import type {LocationRecord} from '../../domain/records.js'
import type {AppContext} from '../context.js'
import {accountOf} from '../internal/auth.js'
import {paginate, readListQuery} from '../internal/list.js'

export const renderLocation = (l: LocationRecord) => ({
  id: l.id,
  object: l.object,
  name: l.name,
  timezone: l.timezone,
  currency: l.currency,
  created_at: l.created_at,
})

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
