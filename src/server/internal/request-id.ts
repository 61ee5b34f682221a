import {type H3Event, setResponseHeader} from 'h3'
import {newId} from '../../domain/ids.js'
import {redactTokens} from '../../domain/redaction.js'
import {requestHeader} from './headers.js'

const CALLER_ID = /^[A-Za-z0-9._:/+=-]{1,200}$/

/**
 * The caller's `X-Request-Id` when it is well formed, otherwise a new one. One holding a webhook secret or an
 * API key is not taken: the id names a log entry, where no secret is ever shown (docs/api.md, "The request log").
 */
export function requestIdFor(given: string | undefined): string {
  return given && CALLER_ID.test(given) && redactTokens(given) === given ? given : newId('req')
}

/** Echoes a well-formed caller `X-Request-Id`, otherwise makes one; every answer carries it. */
export function assignRequestId(event: H3Event): void {
  const id = requestIdFor(requestHeader(event, 'x-request-id'))
  event.context.requestId = id
  setResponseHeader(event, 'x-request-id', id)
}
