import {type H3Event, setResponseHeader} from 'h3'
import {newId} from '../../domain/ids.js'
import {requestHeader} from './headers.js'

const CALLER_ID = /^[A-Za-z0-9._:/+=-]{1,200}$/

/** Echoes a well-formed caller `X-Request-Id`, otherwise makes one; every answer carries it. */
export function assignRequestId(event: H3Event): void {
  const given = requestHeader(event, 'x-request-id')
  const id = given && CALLER_ID.test(given) ? given : newId('req')
  event.context.requestId = id
  setResponseHeader(event, 'x-request-id', id)
}
