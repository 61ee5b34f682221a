import {STATUS_CODES, type IncomingMessage, type ServerResponse} from 'node:http'
import type {Socket} from 'node:net'
import {ApiError} from '../../domain/errors.js'
import {errorBody} from './errors.js'
import {requestIdFor} from './request-id.js'

/** What Node's HTTP parser refused, or waited for too long, as the API's error (docs/api.md, "HTTP details"). */
function clientError(error: NodeJS.ErrnoException): ApiError {
  if (error.code === 'HPE_HEADER_OVERFLOW')
    return new ApiError('headers_too_large', 'The request head is over 16 KiB: send fewer or shorter headers.')
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return new ApiError(
      'request_timeout',
      'The request did not arrive whole in time (docs/api.md, "HTTP details", Connections), so its connection is closed: send it again.',
    )
  return new ApiError(
    'malformed_request',
    `The request is not HTTP/1.1 that the server can read (${error.code ?? error.message}): check its request line, its headers (printable text only) and the framing of its body (Content-Length or chunked).`,
  )
}

// the refusal of a request the app already runs, for its log entry to record what the client was answered
const refusals = new WeakMap<IncomingMessage, ApiError>()

/** Why Node's parser refused the body of `req`, a request the app runs, if it did. */
export const refusalOf = (req: IncomingMessage): ApiError | undefined => refusals.get(req)

/** An error answer's body and headers, as both answers here send them. */
function answerOf(error: ApiError, requestId: string) {
  const body = JSON.stringify(errorBody(error, requestId))
  const headers = {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'x-request-id': requestId,
  }
  return {body, headers}
}

/** The answer a connection is sending, if any: Node's own field, which it reads for the same purpose. */
const answerOn = (socket: Socket): ServerResponse | undefined =>
  (socket as Socket & {_httpMessage?: ServerResponse | null})._httpMessage ?? undefined

/**
 * For Node's `clientError` event: answers a connection whose request Node
 * could not read with the error body and an `X-Request-Id`, as every other
 * answer, then closes it. The requests the client sent before it (pipelined)
 * are answered first, in order, as HTTP/1.1 has it; a refusal that would
 * land inside an answer already begun is not sent.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket, behindAnother = false): void {
  if (error.code === 'ECONNRESET') return void socket.destroy()
  const answer = answerOn(socket)
  // a whole request before this one, still being answered: the refusal follows its answer (and the next's)
  if (answer?.req.complete) return void answer.once('finish', () => answerClientError(error, socket, true))
  if (socket.writable && !answer?.headersSent) {
    // a request the app already runs (refused in its body) keeps the id the app gave it: it names its log entry
    const requestId = (answer?.getHeader('x-request-id') as string | undefined) ?? requestIdFor(undefined)
    const refusal = clientError(error)
    if (answer) refusals.set(answer.req, refusal)
    writeAnswer(socket, refusal, requestId, {}, refusesHead(error, answer, behindAnother))
  }
  socket.destroy()
}

/**
 * Whether the request Node refused is a `HEAD`, whose answer carries no body (RFC 9110, 9.3.2): its client
 * would read the body as the next answer, and report a parse error instead of the refusal. Node made the
 * request when it refused it after its head (an invalid Transfer-Encoding, a body too slow); else the refused
 * packet starts with its request line, unless it came behind other requests, whose lines it then starts with.
 */
function refusesHead(error: NodeJS.ErrnoException, answer: ServerResponse | undefined, behindAnother: boolean) {
  if (answer) return answer.req.method === 'HEAD'
  const packet = (error as NodeJS.ErrnoException & {rawPacket?: Buffer}).rawPacket
  return !behindAnother && packet?.subarray(0, 5).toString('latin1') === 'HEAD '
}

/**
 * Writes `refusal` whole on a connection that no `ServerResponse` answers, as its last answer: without its
 * body when it answers a `HEAD`, as every other answer to one is.
 */
function writeAnswer(
  socket: Socket,
  refusal: ApiError,
  requestId: string,
  more: Record<string, string> = {},
  head = false,
): void {
  const {body, headers} = answerOf(refusal, requestId)
  const lines = Object.entries({...headers, ...more, connection: 'close'}).map(
    ([name, value]) => `${name}: ${value}\r\n`,
  )
  const content = head ? '' : body
  socket.write(`HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\n${lines.join('')}\r\n${content}`)
}

/**
 * For Node's `connect` event, without which Node closes the connection unanswered: a CONNECT asks for a
 * tunnel, which only a proxy opens. It is answered 405 with the error body and an empty `Allow` (its target
 * names no resource here), and its connection closed.
 */
export function refuseConnect(req: IncomingMessage, socket: Socket): void {
  const refusal = new ApiError(
    'method_not_allowed',
    "CONNECT asks for a tunnel, which only a proxy opens, and this server is none: send the API's requests to its /v1 routes.",
  )
  writeAnswer(socket, refusal, requestIdFor(req.headers['x-request-id'] as string | undefined), {allow: ''})
  socket.destroySoon()
}

/** Answers `error` with the error body and the request's id, and closes the connection: what follows is not read. */
function refuse(req: IncomingMessage, res: ServerResponse, error: ApiError): void {
  const {body, headers} = answerOf(error, requestIdFor(req.headers['x-request-id'] as string | undefined))
  res.shouldKeepAlive = false
  res.writeHead(error.status, headers).end(body)
}

/**
 * For Node's `checkExpectation` event: an `Expect` other than `100-continue`
 * is answered 417 with the error body, and its connection closed, as the
 * body it may send next is no request.
 */
export function refuseExpectation(req: IncomingMessage, res: ServerResponse): void {
  refuse(
    req,
    res,
    new ApiError(
      'expectation_failed',
      `Expect: ${JSON.stringify(req.headers.expect)} is not one the server meets: send the request without it, or with Expect: 100-continue.`,
    ),
  )
}

/** How many `Host` and `Authorization` lines the request has (Node keeps the first of each in `headers`). */
function singletonLines(raw: readonly string[]): {host: number; authorization: number} {
  const lines = {host: 0, authorization: 0}
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!
    if (name.length === 4 && name.toLowerCase() === 'host') lines.host++
    else if (name.length === 13 && name.toLowerCase() === 'authorization') lines.authorization++
  }
  return lines
}

/**
 * An HTTP/1.1 request without `Host`, or any with more than one, is answered 400 with the error body, as RFC
 * 9112 (3.2) asks: Node's own refusal (`requireHostHeader`, turned off in listen.ts) is a bare 400, with no
 * body and no `X-Request-Id`, and it lets two through. So is one with two `Authorization` lines, of which
 * Node would keep the first silently: a client that sends two keys means one of them. Returns whether it
 * refused.
 */
export function refusedForHead(req: IncomingMessage, res: ServerResponse): boolean {
  const {host, authorization} = singletonLines(req.rawHeaders)
  const hostMissing = host === 0 && req.httpVersion === '1.1'
  if (!hostMissing && host <= 1 && authorization <= 1) return false
  const message = hostMissing
    ? 'An HTTP/1.1 request needs a Host header: send one, e.g. Host: 127.0.0.1:4747.'
    : host > 1
      ? 'The request has more than one Host header: send one.'
      : 'The request has more than one Authorization header: send one, with the key to use.'
  refuse(req, res, new ApiError('malformed_request', message))
  return true
}
