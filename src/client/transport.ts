import {hasDotSegment, type ParamsOf, type Route, ROUTES, type RouteId, routePath} from '../domain/routes.js'
import {nestingProblem} from '../domain/json-depth.js'
import {apiKeyProblem, quoted, serverUrlProblem} from '../shared/server-url.js'
import {
  TablepayApiError,
  TablepayConfigError,
  TablepayConnectionError,
  TablepayEventStreamError,
  isApiObject,
  TablepayError,
  type TablepayErrorBody,
  TablepayTimeoutError,
  TablepayUnexpectedAnswerError,
} from './errors.js'
import {waitAsLongAsAsked} from './fetch-waits.js'

type Query = Record<string, string | number | undefined>

/** What a call sends besides its path: the query, the JSON body, an `Idempotency-Key`. */
export interface Sent {
  query?: Query
  body?: unknown
  idempotencyKey?: string
}

/** A 2xx answer: its body parsed, its headers and status. */
export interface Answered<T> {
  data: T
  headers: Headers
  status: number
}

type Fetch = (input: string, init: RequestInit) => Promise<Response>

/** The longest `timeoutMs`, in ms: the longest a Node timer waits. */
const LONGEST_TIMER_MS = 2 ** 31 - 1

/** The rejections of the exchanges under way (`settling`). */
const underWay = new Set<(error: Error) => void>()
let watching = false

/**
 * `exchange`, failed as a reset connection if the process has nothing else left to do while it is under way.
 * Node 20's fetch can leave a call unsettled for ever when the server resets the connection as the request is
 * sent; a CLI command would then end with exit code 0 and no word. Once nothing else keeps the process alive
 * (`beforeExit`), no answer can come.
 */
function settling<T>(exchange: Promise<T>): Promise<T> {
  if (!watching) process.on('beforeExit', failUnderWay)
  watching = true
  return new Promise<T>((resolve, reject) => {
    underWay.add(reject)
    exchange.then(resolve, reject).finally(() => underWay.delete(reject))
  })
}

function failUnderWay(): void {
  const ended = new Error('the connection ended without an answer')
  for (const reject of underWay) reject(ended)
  underWay.clear()
}

/**
 * The HTTP exchange under `TablepayClient`: an operation of the API sent by
 * its route id (`ROUTES`, src/domain/routes.ts) with the key, and its
 * answer read. A non-2xx answer throws a `TablepayApiError`; no answer, a
 * `TablepayConnectionError`; none within `timeoutMs` (0: no limit), a
 * `TablepayTimeoutError`.
 *
 * @example
 * const transport = new Transport('http://127.0.0.1:4747', 'tp_test_demo_read', fetch, 0)
 * const {data} = await transport.send('getCheck', {id: 'chk_1'})
 */
export class Transport {
  readonly #fetch: Fetch

  constructor(
    private readonly url: string,
    private readonly apiKey: string,
    fetch: Fetch,
    private readonly timeoutMs: number,
    /** Sent with every request, besides the key (`ClientOptions.headers`). */
    private readonly headers: Readonly<Record<string, string>> = {},
  ) {
    // fetch would refuse each request as unsendable, which reads as a server out of reach
    const urlProblem = serverUrlProblem(url)
    if (urlProblem) throw new TablepayConfigError('invalid_url', `The URL ${quoted(url)} ${urlProblem}.`)
    const keyProblem = apiKeyProblem(apiKey)
    if (keyProblem) throw new TablepayConfigError('invalid_api_key', `The API key ${keyProblem}.`)
    // a timer past it fires at once, and AbortSignal.timeout throws a RangeError for it, or for a fraction
    if (!(Number.isInteger(timeoutMs) && timeoutMs >= 0 && timeoutMs <= LONGEST_TIMER_MS))
      throw new TablepayConfigError(
        'invalid_timeout',
        `timeoutMs ${quoted(String(timeoutMs))} is not a whole number of ms from 0 (no limit) to ${LONGEST_TIMER_MS} (about 24 days, the longest a timer waits).`,
      )
    this.#fetch = (input, init) => settling(fetch(input, init))
  }

  /** Operation `id`, with the values `params` of its path's parameters, answered. */
  async send<Id extends RouteId, T>(
    id: Id,
    params: ParamsOf<Id>,
    {query, body, idempotencyKey}: Sent = {},
  ): Promise<Answered<T>> {
    const url = `${this.url}/v1${routePath(id, params)}${queryString(query)}`
    // the whole exchange, body included: a server may stall after its headers too
    const timeout = this.timeoutMs > 0 ? AbortSignal.timeout(this.timeoutMs) : undefined
    const response = await this.#answer(url, this.#init(ROUTES[id].method, {body, idempotencyKey}, timeout), timeout)
    const text = await response.text().catch((error: unknown) => Promise.reject(this.#unanswered(error, timeout)))
    let data: T
    try {
      data = JSON.parse(text) as T
    } catch {
      // something else answers at the URL: another service on the port, a proxy's page
      throw new TablepayUnexpectedAnswerError(this.url, response.status, text)
    }
    if (!isAnswerOf(id, data)) throw new TablepayUnexpectedAnswerError(this.url, response.status, text)
    return {data, headers: response.headers, status: response.status}
  }

  /**
   * Any request under `/v1` (`path` with its query), answered whatever its
   * status: the body parsed when it is JSON, else its text (null when empty).
   * Throws only when there is no answer, or when it is an event stream (`TablepayEventStreamError`).
   */
  async request(
    method: string,
    path: string,
    sent: Sent & {headers?: Record<string, string>} = {},
  ): Promise<Answered<unknown>> {
    // fetch would resolve a `..` away and send the request elsewhere (`/v1/..` is the dashboard): a caller's bug
    if (!path.startsWith('/') || hasDotSegment(path))
      throw new TypeError(
        `request: ${JSON.stringify(path)} is not a path under /v1 (it starts with /, no . or .. segment)`,
      )
    // fetch refuses it with a TypeError, which would read as a server out of reach
    if (sent.body !== undefined && ['GET', 'HEAD'].includes(method.toUpperCase()))
      throw new TypeError(`request: a ${method} request has no body: drop it, or send it with another method`)
    const timeout = this.timeoutMs > 0 ? AbortSignal.timeout(this.timeoutMs) : undefined
    const unanswered = (error: unknown) => Promise.reject(this.#unanswered(error, timeout))
    const response = await this.#fetch(`${this.url}/v1${path}`, this.#init(method, sent, timeout)).catch(unanswered)
    // an event stream never ends: waiting for all of its text would wait for ever
    if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
      await response.body?.cancel()
      throw new TablepayEventStreamError(this.url, `${method} ${path}`, response.status)
    }
    const text = await response.text().catch(unanswered)
    let data: unknown = text === '' ? null : text
    try {
      data = JSON.parse(text)
    } catch {}
    return {data, headers: response.headers, status: response.status}
  }

  /** A request's init: the key, JSON in and out, an `Idempotency-Key`, headers of the caller's over the client's. */
  #init(
    method: string,
    {body, idempotencyKey, headers: extra}: Sent & {headers?: Record<string, string>},
    signal: AbortSignal | undefined,
  ): RequestInit {
    const headers: Record<string, string> = {
      ...lowerNames(this.headers),
      authorization: `Bearer ${this.apiKey}`,
      accept: 'application/json',
    }
    if (body !== undefined) headers['content-type'] = 'application/json'
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey
    Object.assign(headers, lowerNames(extra))
    return {method, headers, body: body === undefined ? undefined : jsonBody(body), signal, ...waitAsLongAsAsked()}
  }

  /** `GET /v1/sim/stream`, answered: the caller reads its messages. */
  async stream(signal: AbortSignal | undefined): Promise<Response> {
    // the timeout covers the answer's start only: a stream then stays open for as long as the caller reads
    const opening = this.timeoutMs > 0 ? new AbortController() : undefined
    const timer = opening && setTimeout(() => opening.abort(), this.timeoutMs)
    const either = opening && signal ? AbortSignal.any([signal, opening.signal]) : (opening?.signal ?? signal)
    const url = `${this.url}/v1${routePath('streamEvents', {})}`
    try {
      // the client's own key and accept over a caller's header of another case, as in every other call
      const headers = {...lowerNames(this.headers), authorization: `Bearer ${this.apiKey}`, accept: 'text/event-stream'}
      const response = await this.#answer(url, {headers, signal: either}, opening?.signal)
      // a proxy's page, or another service on the port, would read as a stream that ends at once, empty
      const type = response.headers.get('content-type')
      if (type?.startsWith('text/event-stream')) return response
      await response.body?.cancel()
      throw new TablepayUnexpectedAnswerError(this.url, response.status, `content-type: ${type ?? 'none'}`)
    } catch (error) {
      // the caller's own abort is no failure of the server: it rejects with the signal's reason, as fetch does
      throw signal?.aborted ? signal.reason : error
    } finally {
      clearTimeout(timer)
    }
  }

  /** A 2xx answer's response; else the API's error, or why there was none (`timeout` aborts when it runs out). */
  async #answer(url: string, init: RequestInit, timeout: AbortSignal | undefined): Promise<Response> {
    let response: Response
    try {
      response = await this.#fetch(url, init)
    } catch (error) {
      throw this.#unanswered(error, timeout)
    }
    // an error body cut off by the timeout, or by the connection, is no answer either
    if (!response.ok) throw await apiError(response).catch((error: unknown) => this.#unanswered(error, timeout))
    return response
  }

  #unanswered(error: unknown, timeout: AbortSignal | undefined): TablepayError {
    return timeout?.aborted
      ? new TablepayTimeoutError(this.url, this.timeoutMs)
      : new TablepayConnectionError(this.url, error)
  }
}

/**
 * A request's body as JSON; one JSON cannot hold (a cycle, a BigInt) or nested too deep is the caller's
 * TypeError. Node's JSON.stringify overflows the stack on a deep body before Node 26, and writes it out from
 * 26: the bound is judged either way, so a body is refused alike on every Node.
 */
function jsonBody(body: unknown): string {
  let text: string
  try {
    text = JSON.stringify(body, finiteNumbers)
  } catch (error) {
    const why =
      (error instanceof NotFinite && error.message) ||
      (error instanceof RangeError && nestingProblem(body)) ||
      `is no JSON value: ${(error as Error).message}`
    throw new TypeError(`request: the body ${why}`)
  }
  const deep = nestingProblem(body)
  if (deep) throw new TypeError(`request: the body ${deep}`)
  return text
}

/** A number JSON cannot hold, which JSON.stringify would send as null: the server would then name a null. */
class NotFinite extends Error {}

function finiteNumbers(key: string, value: unknown): unknown {
  if (typeof value === 'number' && !Number.isFinite(value))
    throw new NotFinite(
      `holds ${value}${key ? ` in ${JSON.stringify(key)}` : ''}, which JSON cannot carry: pass a finite number`,
    )
  return value
}

/** Header names as one case, so that a caller's `Authorization` replaces the client's `authorization`. */
const lowerNames = (headers: Readonly<Record<string, string>> = {}): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]))

/**
 * Whether `data` looks like route `id`'s answer: an object holding the field its answers hold (`Route.answers`),
 * and a list's items, each an object of the API, in an array. JSON of another shape (`null`, `{"data": 5}`,
 * `{"object": "list", "data": [{}]}`) would reach a command's output as nonsense, or as an error of its own code.
 */
function isAnswerOf(id: RouteId, data: unknown): boolean {
  const route: Route = ROUTES[id]
  if (!isApiObject(data, route.answers)) return false
  return data.object !== 'list' || (Array.isArray(data.data) && data.data.every((item) => isApiObject(item)))
}

function queryString(query: Query = {}): string {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value))
  const text = params.toString()
  return text ? `?${text}` : ''
}

// Something other than tablepay may answer (a proxy, another service on the
// port): its body is not ours, so fall back to the HTTP status.
async function apiError(response: Response): Promise<TablepayApiError> {
  const text = await response.text()
  let body: Partial<TablepayErrorBody> = {}
  try {
    body = JSON.parse(text) as TablepayErrorBody
  } catch {}
  // ours has a code and a message; `{"error": "upstream unavailable"}` is a proxy's, and `null` a handler's
  const ours = typeof body?.error?.code === 'string' && typeof body.error.message === 'string'
  const error = ours
    ? body.error!
    : {
        code: `http_${response.status}`,
        message: `HTTP ${response.status} ${response.statusText} from ${response.url}${text ? `: ${text.slice(0, 200)}` : ' (no body)'}`,
      }
  const retryAfter = Number(response.headers.get('retry-after') ?? Number.NaN)
  return new TablepayApiError(
    response.status,
    {...error, request_id: error.request_id ?? response.headers.get('x-request-id') ?? undefined},
    Number.isFinite(retryAfter) ? retryAfter : undefined,
  )
}
