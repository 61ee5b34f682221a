import {STATUS_CODES} from 'node:http'
import {H3Error, type H3Event, send, setResponseHeader, setResponseStatus} from 'h3'
import {ApiError} from '../../domain/errors.js'
import {goOn, keptAfter} from '../../shared/disk-failure.js'

/** The answer to every request once the data dir could not be written (see `Store.failure`). */
export function storageUnavailable(failure: Error): ApiError {
  const reason = (failure as NodeJS.ErrnoException).code ?? failure.message
  // PostgreSQL (`serve --database`): its tables dropped while it ran, which only a start makes again
  if ((failure as {gone?: boolean}).gone)
    return new ApiError(
      'storage_unavailable',
      `tablepay's tables are gone from its database (${reason}): something dropped them while it ran. Start \`tablepay serve\` again to make them anew, with its --seed; until then every request is answered with this error.`,
    )
  // PostgreSQL, a request still running as the server stops (its client gone, or an in-process one)
  if ((failure as {stopping?: boolean}).stopping)
    return new ApiError(
      'storage_unavailable',
      `tablepay is stopping and cannot use its database any more (${reason}). A request answered with this error may or may not have been saved; send it again once tablepay runs again.`,
    )
  // PostgreSQL: a unit that ran out of tries, with nothing written (src/postgres/errors.ts, UnitGaveUp)
  if (failure.name === 'UnitGaveUp')
    return new ApiError(
      'storage_unavailable',
      (failure as {locked?: boolean}).locked
        ? `A record this request needs stayed locked by another session of the database for ${(failure as {lockedS?: number}).lockedS} s (${reason}): a transaction left open, by an instance paused mid-request or a session of your own (pg_stat_activity shows it 'idle in transaction'). Nothing was changed; send the request again once that transaction ends.`
        : `This request lost every race for its records to requests through other instances (${reason}). Nothing was changed; send it again.`,
    )
  // PostgreSQL: unlike a failed disk, this heals once the database is back (docs/postgres.md)
  if (failure.name === 'DatabaseUnavailable')
    return new ApiError(
      'storage_unavailable',
      `tablepay cannot use its database (${(failure as {meaning?: string}).meaning ?? reason}) and answers nothing until it can, so that it never shows a change it did not save. It tries again every second and answers as soon as the database is back. A request answered with this error may or may not have been saved; send it again then.`,
    )
  return new ApiError(
    'storage_unavailable',
    `tablepay could not write its data dir (${reason}) and answers nothing more, so that it never shows a change it did not save. ${keptAfter(failure)}. To go on: ${goOn(failure)}. A request answered with this error may or may not have been saved; send it again after the restart.`,
  )
}

/** What a request that no route takes is answered. */
export const noRoute = (): ApiError =>
  new ApiError('not_found', 'No such route. The API lives under /v1; docs/api.md lists its routes.')

/** Any thrown value as the API error it stands for; what is not ours becomes a 500. */
export function toApiError(error: unknown): ApiError {
  // what a handler threw, h3 hands over wrapped
  const thrown = error instanceof H3Error && error.cause instanceof Error ? error.cause : error
  if (thrown instanceof ApiError) return thrown
  // a unit that failed on a database gone away, answered after the storage healed, or that ran out of tries
  // (PostgreSQL): a 503, never a 500
  if (thrown instanceof Error && (thrown.name === 'DatabaseUnavailable' || thrown.name === 'UnitGaveUp'))
    return storageUnavailable(thrown)
  if (error instanceof H3Error) {
    if (error.statusCode === 404) return noRoute()
    if (error.statusCode === 405)
      return new ApiError(
        'method_not_allowed',
        'This route does not take that method; docs/api.md says what each route accepts.',
      )
  }
  return new ApiError(
    'internal_error',
    'The simulator failed unexpectedly; this is a bug, please report it with the request id.',
  )
}

/** Every error answer's body: `{"error": {code, message, request_id, details?}}`. */
export const errorBody = (error: ApiError, requestId: string) => ({
  error: {
    code: error.code,
    message: error.message,
    request_id: requestId,
    ...(error.details ? {details: error.details} : {}),
  },
})

/** The one place that writes an error answer of a route, its body `errorBody`'s. */
export async function sendApiError(event: H3Event, error: ApiError): Promise<void> {
  const body = errorBody(error, event.context.requestId)
  // the standard reason phrase: h3 would keep the made-up one of its own errors ("Method GET is not allowed…")
  setResponseStatus(event, error.status, STATUS_CODES[error.status])
  setResponseHeader(event, 'content-type', 'application/json')
  if (error.code === 'unauthenticated') setResponseHeader(event, 'www-authenticate', 'Bearer realm="tablepay"')
  await send(event, JSON.stringify(body))
}

/**
 * After a fault reset the connection: nothing to send on a socket. A web
 * request (the msw handlers) has none, so it gets an empty answer that the
 * msw handler turns into a network error.
 */
export async function sendReset(event: H3Event): Promise<void> {
  if (event.handled) return
  setResponseStatus(event, 503)
  await send(event, '')
}
