import {REQUEST_LOG_OFF} from '../../domain/constants.js'
import {ApiError} from '../../domain/errors.js'
import {RequestEntry, RequestFilters} from '../../domain/request-log.js'
import {accountOf} from '../internal/auth.js'
import {readListQuery, unknownCursor} from '../internal/list.js'
import type {OperationSpec} from '../operations.js'

/**
 * With the log off, its routes say so instead of answering an empty log for ever (docs/api.md, "The request
 * log"): a `logs tail` would wait on nothing.
 */
function refuseWhenOff(log: {enabled: boolean}): void {
  if (!log.enabled) throw new ApiError('not_found', REQUEST_LOG_OFF)
}

/** The request log: what the account's requests were and how they were answered (docs/api.md, "The request log"). */
export const requestOperations: OperationSpec[] = [
  {
    id: 'listRequests',
    summary: "The account's requests, newest first: the request log",
    response: RequestEntry,
    list: true,
    filters: RequestFilters,
    errors: ['not_found'],
    handler(event, {service}) {
      refuseWhenOff(service.requests)
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
      refuseWhenOff(service.requests)
      // a caller's id may hold "/" (X-Request-Id allows it), sent as %2F, which the router leaves encoded in a segment
      const id = (event.context.params?.request_id ?? '').replace(/%2F/gi, '/')
      const entry = service.requests.get(accountOf(event), id)
      if (!entry) {
        const kept = `it keeps the last ${service.requests.size} requests of each account, in memory`
        throw new ApiError('not_found', `No request ${id} in this account's request log (${kept}).`)
      }
      return entry
    },
  },
]
