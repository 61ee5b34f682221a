import {brand} from '../shared/error-brand.js'
import {answeredWithoutTls, networkReason} from '../shared/network-reason.js'
/** One entry of an API error's `details`: where in the input the problem is, and what it is. */
export interface TablepayErrorDetail {
  path: string
  message: string
  external_id?: string
}

/** The body of every API error answer. */
export interface TablepayErrorBody {
  error: {code: string; message: string; request_id?: string; details?: TablepayErrorDetail[]}
}

/**
 * Base of every error the client throws, so callers can catch them all with
 * one `instanceof`; `code` is machine-readable, `message` says what to do.
 */
export class TablepayError extends Error {
  static {
    brand(this, 'TablepayError')
  }

  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
    this.name = 'TablepayError'
  }

  /** The error in the API's error body shape, for `--json` output. */
  toJSON(): TablepayErrorBody {
    return {error: {code: this.code, message: this.message}}
  }
}

/**
 * The server answered with a non-2xx status.
 *
 * @example
 * try { await client.getCheck('chk_missing') } catch (e) {
 *   if (e instanceof TablepayApiError && e.code === 'not_found') …
 * }
 */
export class TablepayApiError extends TablepayError {
  static {
    brand(this, 'TablepayApiError')
  }

  readonly requestId?: string
  readonly details?: TablepayErrorDetail[]

  constructor(
    readonly status: number,
    body: TablepayErrorBody['error'],
    /** The answer's `Retry-After`, in seconds, when it had one (429, and 503). */
    readonly retryAfterS?: number,
  ) {
    super(body.code, body.message)
    this.name = 'TablepayApiError'
    this.requestId = body.request_id
    this.details = body.details
  }

  override toJSON(): TablepayErrorBody {
    return {error: {code: this.code, message: this.message, request_id: this.requestId, details: this.details}}
  }
}

/** No answer at all: nothing listens at the URL, or the network failed. */
export class TablepayConnectionError extends TablepayError {
  static {
    brand(this, 'TablepayConnectionError')
  }

  constructor(
    readonly url: string,
    cause: unknown,
  ) {
    const reason = networkReason(cause)
    super('connection_failed', connectionFailure(url, reason))
    this.name = 'TablepayConnectionError'
    this.cause = cause
  }
}

/** What went wrong with the connection, and what to do next. */
function connectionFailure(url: string, reason: string): string {
  if (reason === 'ECONNREFUSED')
    return `No tablepay server at ${url}. Start one with \`tablepay serve\`, or give the client another URL (--url).`
  // `tablepay serve` speaks plain HTTP only
  if (answeredWithoutTls(reason))
    return `The server at ${url} answered in plain HTTP, not TLS (${reason}): give the client its http:// URL (--url ${url.replace(/^https:/i, 'http:')}).`
  // the connection closed with the request sent: a tablepay fault's lost answer does that (docs/api.md, "Faults"),
  // so does a server stopped as the request reached it, and a program that is no tablepay server
  if (reason === 'UND_ERR_SOCKET' || reason === 'ECONNRESET')
    return (
      `The server at ${url} closed the connection without an answer (${reason}): the request may or may not have ` +
      'been carried out. On a tablepay server, a fault made with `tablepay faults add --reset` does this (see ' +
      '`tablepay faults list`), and so does a stop of the server; else check --url.'
    )
  // fetch's own limit (300 s unless its dispatcher says otherwise), where the client cannot lift it (jest's sandbox)
  if (reason === 'UND_ERR_HEADERS_TIMEOUT' || reason === 'UND_ERR_BODY_TIMEOUT')
    return (
      `The server at ${url} had not answered when fetch stopped waiting (${reason}): the request may still be ` +
      'under way there (a long clock advance goes on). Run it where fetch waits longer, or make it shorter.'
    )
  return `Could not reach the tablepay server at ${url} (${reason}). Check the client's URL (--url).`
}

/** The client cannot be configured: typically no API key anywhere. */
export class TablepayConfigError extends TablepayError {
  static {
    brand(this, 'TablepayConfigError')
  }

  constructor(code: string, message: string) {
    super(code, message)
    this.name = 'TablepayConfigError'
  }
}

/**
 * The server took longer than the client's `timeoutMs` to answer (a stuck or
 * overloaded server, or a fault's delay): the request may still have been
 * carried out, as with any answer lost on the way.
 */
export class TablepayTimeoutError extends TablepayError {
  static {
    brand(this, 'TablepayTimeoutError')
  }

  constructor(
    readonly url: string,
    readonly timeoutMs: number,
  ) {
    super(
      'server_timeout',
      `The tablepay server at ${url} did not answer within ${formatMs(timeoutMs)}. ` +
        "Give it longer (--timeout, or the client's timeoutMs; 0 waits as long as it takes), or see what keeps it busy.",
    )
    this.name = 'TablepayTimeoutError'
  }
}

const formatMs = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`)

/**
 * A success answer that is not the API's JSON: something other than tablepay
 * answers at the URL (another service on the port, a proxy's page).
 */
/**
 * Whether `value` is one of the API's objects: a JSON object holding `field`, which every answer of a route
 * holds (`object`: "check", "list"…, unless its route names another, src/domain/routes.ts). Anything else
 * answered at the URL is a `TablepayUnexpectedAnswerError`.
 */
export const isApiObject = (value: unknown, field = 'object'): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && field in value

export class TablepayUnexpectedAnswerError extends TablepayError {
  static {
    brand(this, 'TablepayUnexpectedAnswerError')
  }

  constructor(
    readonly url: string,
    readonly status: number,
    body: string,
  ) {
    super(
      'unexpected_answer',
      `The server at ${url} answered ${status} with something that is not the tablepay API's JSON ` +
        `(${JSON.stringify(body.slice(0, 60))}${body.length > 60 ? '…' : ''}). Is it the tablepay server?`,
    )
    this.name = 'TablepayUnexpectedAnswerError'
  }
}

/**
 * A request answered with an event stream, which never ends: it is read as a stream (`stream()`), not as one
 * answer. `status` is the stream's (200).
 */
export class TablepayEventStreamError extends TablepayError {
  static {
    brand(this, 'TablepayEventStreamError')
  }

  constructor(
    readonly url: string,
    request: string,
    readonly status: number,
  ) {
    super(
      'unexpected_answer',
      `${request} at ${url} answers an event stream, which never ends: read it with \`tablepay listen\` ` +
        '(`client.openStream()`), not as one answer.',
    )
    this.name = 'TablepayEventStreamError'
  }
}
