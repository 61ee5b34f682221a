import {renderLocation} from '../../domain/locations.js'
import {Location} from '../../domain/schemas.js'
import {accountOf} from '../internal/auth.js'
import {paginate, readListQuery} from '../internal/list.js'
import type {OperationSpec} from '../operations.js'

export const locationOperations: OperationSpec[] = [
  {
    id: 'listLocations',
    summary: "The account's locations",
    response: Location,
    list: true,
    handler(event, {service}) {
      const query = readListQuery(event)
      return paginate(service.records, 'locations', accountOf(event), query, undefined, renderLocation)
    },
  },
]
