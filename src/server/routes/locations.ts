import {defineEventHandler, type Router} from 'h3'
import {renderLocation} from '../../domain/locations.js'
import type {AppContext} from '../context.js'
import {accountOf} from '../internal/auth.js'
import {paginate, readListQuery} from '../internal/list.js'

export function locationRoutes(router: Router, {service}: AppContext): void {
  router.get(
    '/v1/locations',
    defineEventHandler((event) => {
      const query = readListQuery(event)
      return paginate(service.records, 'locations', accountOf(event), query, undefined, renderLocation)
    }),
  )
}
