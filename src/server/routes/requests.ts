import {ApiError} from '../../domain/errors.js'
import {RequestEntry, RequestFilters} from '../../domain/request-log.js'
import {accountOf} from '../internal/auth.js'
import {readListQuery, unknownCursor} from '../internal/list.js'
import type {OperationSpec} from '../operations.js'

/** The request log: what the account's requests were and how they were answered (docs/api.md, "The request log"). */
export const requestOperations: OperationSpec[] = [
  {
    id: 'listRequests',
    summary: "The account's requests, newest first: the request log",
    response: RequestEntry,
    list: true,
    filters: RequestFilters,
    handler(event, {service}) {
      const query = readListQuery(event, RequestFilters)
      const {limit, starting_after, ...filters} = query
      const page = service.requests.list(accountOf(event), filters, {limit, starting_after})
      if (!page) throw unknownCursor(starting_after!)
      return page
    },
  },
  {
    id: 'getRequest',
    summary: 'One logged request by its X-Request-Id: both bodies, the error, what a push moved',
    response: RequestEntry,
    handler(event, {service}) {
      // a caller's id may hold "/" (X-Request-Id allows it), sent as %2F, which the router leaves encoded in a segment
      const id = (event.context.params?.request_id ?? '').replace(/%2F/gi, '/')
      const entry = service.requests.get(accountOf(event), id)
      if (!entry) {
        const why = service.requests.enabled
          ? `the log keeps the last ${service.requests.size} requests of each account, in memory`
          : 'the request log is off (serve --request-log 0)'
        throw new ApiError('not_found', `No request ${id} in this account's request log (${why}).`)
      }
      return entry
    },
  },
]
