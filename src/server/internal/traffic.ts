import {performance} from 'node:perf_hooks'
import {setTimeout as sleep} from 'node:timers/promises'
import {getQuery, type H3Event, setResponseHeader} from 'h3'
import {CLIENT_HEADER, OWN_CLIENTS} from '../../domain/constants.js'
import {ApiError} from '../../domain/errors.js'
import {type Fault, FaultError} from '../../domain/faults.js'
import type {ApiKeyRecord} from '../../domain/records.js'
import {type AccessLine, keptBody, keptMessage, keyHint} from '../../domain/request-log.js'
import {REDACTED, redactTokens} from '../../domain/redaction.js'
import type {PushNotes, RequestTrace, Service} from '../../service/index.js'
import {accountOf} from './auth.js'
import {requestHeader} from './headers.js'

// API routes the log leaves out: public ones, the live stream, and the log's own reads
const UNLOGGED = /^\/v1\/(health|openapi\.json|sim\/stream|sim\/requests(\/.*)?)\/?$/
const CHECK_IN_PATH = /^\/v1\/(?:sim\/)?checks\/(chk_[A-Za-z0-9]+)/
const OWN = new Set<string | undefined>(OWN_CLIENTS)

/** Thrown to end a request whose connection a fault destroyed: nothing is answered. */
class ConnectionReset extends Error {}

/** What the app keeps of an API request on its way: `event.context.passage`. */
export interface Passage {
  started: number
  path: string
  /** The dashboard or a CLI tail drawing itself (`X-Tablepay-Client`): neither logged nor printed. */
  own: boolean
  accountId?: string
  key?: string
  /** What the push learns, when the request is logged (the route hands it to the service). */
  notes?: PushNotes
  fault?: Fault
  /** The fault has done its part (delay, reset or answer): it strikes once. */
  struck?: boolean
}

/** What a logged push notes for the request log; undefined when the request is not logged. */
export const notesOf = (event: H3Event): PushNotes | undefined => event.context.passage?.notes

export interface TrafficOptions {
  /** Called once per answered API request: the access line. */
  access?: (line: AccessLine) => void
}

/**
 * What happens to every API request around its route (docs/api.md, "The
 * request log" and "Faults and rate limits"): the rate limit and a fault
 * before it runs, a fault after it is durable, and its entry in the request
 * log once answered. The app's hooks call it; no route handler knows of it.
 *
 * @example
 * onRequest: async (event) => { traffic.start(event, path); await authenticate(event, records, routed); await traffic.admit(event) }
 */
export class Traffic {
  /** `routed` says whether a route answers `method` at `path`: faults strike only API routes. */
  constructor(
    private readonly service: Service,
    private readonly options: TrafficOptions,
    private readonly routed: (method: string, path: string) => boolean,
  ) {}

  /** First thing of every request: when it started, and the path it is for. */
  start(event: H3Event, path: string): void {
    // reads only: what the simulator's own clients change is the user's traffic like any other (docs/api.md)
    const own = (event.method === 'GET' || event.method === 'HEAD') && OWN.has(requestHeader(event, CLIENT_HEADER))
    event.context.passage = {started: performance.now(), path, own} satisfies Passage
  }

  /** After auth: the key's rate limit, then a fault that strikes before the request runs. */
  async admit(event: H3Event): Promise<void> {
    // `start` ran first, and auth found the account
    const passage = event.context.passage!
    const {service} = this
    const accountId = accountOf(event)
    passage.accountId = accountId
    // every field a request may note, from the start: one shape for all notes
    if (service.requests.enabled && !passage.own && !UNLOGGED.test(passage.path))
      passage.notes = {check_id: null, push_result: null, previous: undefined, next: undefined, request_text: undefined}
    // the simulator's own controls stay reachable whatever is asked of the API; its own clients' reads neither
    // take the faults meant for the user's code nor spend the account's rate limit (docs/api.md, "Faults")
    if (passage.path.startsWith('/v1/sim/') || passage.own) return
    if (service.limiter) this.#limit(event, service.limiter, event.context.limitedAs!)
    const taken = service.faults.take(accountId, event.method, passage.path, this.routed)
    // on PostgreSQL a fault that matches is struck in the database first (docs/postgres.md); in memory, no
    // fault is the usual answer, and it is known at once: awaiting it would cost every request a turn
    const fault = taken instanceof Promise ? await taken : taken
    if (!fault) return
    passage.fault = fault
    setResponseHeader(event, 'x-tablepay-fault', fault.id)
    if (!fault.after) await this.#strike(event, passage, fault)
  }

  /** A success answer, once durable: a fault `after` replaces it, else it is logged. */
  async answered(event: H3Event, response: {body?: unknown}): Promise<void> {
    const passage = event.context.passage
    if (!passage) return
    if (passage.fault && !passage.struck) await this.#strike(event, passage, passage.fault)
    this.#logSuccess(event, passage, response)
  }

  /**
   * An error answer about to be sent: a fault `after` replaces it, a reset
   * sends nothing (null). What it resolves with is what is sent, and logged.
   */
  async failed(event: H3Event, error: ApiError, cause: unknown): Promise<ApiError | null> {
    const passage = event.context.passage
    if (!passage) return error
    let answer = error
    if (!(cause instanceof ConnectionReset) && passage.fault && !passage.struck) {
      try {
        await this.#strike(event, passage, passage.fault)
      } catch (thrown) {
        if (!(thrown instanceof ConnectionReset)) answer = thrown as ApiError
      }
    }
    if (cause instanceof ConnectionReset || (passage.struck && passage.fault?.reset)) {
      this.#log(event, passage, null, undefined, null)
      return null
    }
    this.#log(event, passage, answer.status, errorText(event, answer), answer)
    return answer
  }

  /** The account's bucket, not the key's, a scratch account's being its maker's: minting keys does not lift it. */
  #limit(event: H3Event, limiter: NonNullable<Service['limiter']>, accountId: string): void {
    const taken = limiter.take(accountId)
    setResponseHeader(event, 'x-ratelimit-limit', String(limiter.perSecond))
    setResponseHeader(event, 'x-ratelimit-remaining', String(taken.remaining))
    if (taken.allowed) return
    event.node.res.setHeader('retry-after', String(taken.retryAfterS))
    throw new ApiError(
      'rate_limited',
      `Too many requests for this account: at most ${limiter.perSecond} a second (serve --rate-limit). Retry after the Retry-After seconds.`,
    )
  }

  /** The fault's part: its delay, then the reset or its error answer (a delay alone lets the request go on). */
  async #strike(event: H3Event, passage: Passage, fault: Fault): Promise<void> {
    passage.struck = true
    setResponseHeader(event, 'x-tablepay-fault', fault.id)
    if (fault.delay_ms > 0) {
      const from = performance.now()
      // unref'd: a server's connection keeps its process alive meanwhile; a closed simulator's (msw) held request does not
      await sleep(fault.delay_ms, undefined, {ref: false})
      setResponseHeader(event, 'server-timing', `fault;dur=${Math.round(performance.now() - from)}`)
    }
    if (fault.reset) {
      resetConnection(event)
      throw new ConnectionReset()
    }
    if (fault.status !== null) {
      if (fault.retry_after_s !== null) event.node.res.setHeader('retry-after', String(fault.retry_after_s))
      // the answer it replaces is lost whole: no header of it says what the request did (docs/api.md, "Faults")
      event.node.res.removeHeader('x-tablepay-push-result')
      throw new FaultError(fault)
    }
  }

  #logSuccess(event: H3Event, passage: Passage, response: {body?: unknown}): void {
    let text: string | undefined
    let checkId: string | null = null
    const {body} = response
    // a check's answer, the one sent as text, has noted its check already (check-answer.ts)
    if (typeof body === 'string') {
      text = body
    } else if (body !== null && typeof body === 'object' && passage.notes) {
      // serialized here once, and sent as is: h3 would otherwise do it again
      text = JSON.stringify(body)
      response.body = text
      setResponseHeader(event, 'content-type', 'application/json')
      const resource = body as {object?: string; id?: string; check_id?: string}
      checkId = resource.object === 'check' ? (resource.id ?? null) : (resource.check_id ?? null)
    }
    if (passage.notes && checkId && !passage.notes.check_id) passage.notes.check_id = checkId
    this.#log(event, passage, event.node.res.statusCode, text, null)
  }

  #log(event: H3Event, passage: Passage, status: number | null, text: string | undefined, error: ApiError | null) {
    // the user's traffic only: the dashboard's reloads would bury it, in the log and on serve's terminal alike
    if (passage.own) return
    const {service, options} = this
    const duration_ms = Math.round((performance.now() - passage.started) * 100) / 100
    const created_at = service.context.now()
    const id = event.context.requestId
    const notes = passage.notes
    const fault_id = passage.struck ? (passage.fault?.id ?? null) : null
    // a secret or a key sent in the path is shown to nobody: neither in the access line nor to the log's readers,
    // whose `path` filter would otherwise find it out character by character
    const path = redactTokens(passage.path)
    if (options.access && passage.path.startsWith('/v1/')) {
      options.access({
        created_at,
        method: event.method,
        path,
        status,
        push_result: notes?.push_result ?? null,
        error_code: error?.code ?? null,
        duration_ms,
        request_id: id,
        fault_id,
      })
    }
    const accountId = passage.accountId ?? event.context.keyAccountId
    if (!accountId || !service.requests.enabled || UNLOGGED.test(passage.path)) return
    const idempotencyKey = requestHeader(event, 'idempotency-key')
    const updated = notes?.push_result === 'updated'
    const trace: RequestTrace = {
      id,
      method: event.method,
      path,
      query: queryOf(event),
      status,
      duration_ms,
      created_at,
      key_hint: keyHintOf(event),
      idempotency_key: idempotencyKey === undefined ? null : redactTokens(idempotencyKey),
      push_result: notes?.push_result ?? null,
      error: error ? {code: error.code, message: keptMessage(error.message)} : null,
      check_id: notes?.check_id ?? CHECK_IN_PATH.exec(passage.path)?.[1] ?? null,
      fault_id,
      request_body: keptBody(notes?.request_text ?? event.context.requestText),
      response_body: keptBody(text),
      // only an update shows what moved (its `changes`): any other push keeps no version of the check
      previous: updated ? notes.previous : undefined,
      next: updated ? notes.next : undefined,
    }
    service.requests.record(accountId, trace)
  }
}

/** The hint of each key found, made once: a trace is kept for a thousand requests (docs/benchmarks.md, "What a replay keeps"). */
const hints = new WeakMap<ApiKeyRecord, string>()

/** The hint of the caller's key: the one auth found, else the key as sent (a refused key is logged too). */
function keyHintOf(event: H3Event): string {
  const found = event.context.apiKey
  if (!found) return keyHint(/^Bearer\s+(\S+)/i.exec(requestHeader(event, 'authorization') ?? '')?.[1] ?? '')
  let hint = hints.get(found)
  if (hint === undefined) hints.set(found, (hint = keyHint(found.key)))
  return hint
}

/** One object for every request without a query: a trace is kept for a thousand requests, and never changed. */
const NO_QUERY: Record<string, string> = Object.freeze({})

/** The query as the log keeps it: secrets and keys redacted in names and values, a `secret` whatever it is, as in a body. */
function queryOf(event: H3Event): Record<string, string> {
  if (!event.path.includes('?')) return NO_QUERY
  const query: Record<string, string> = {}
  for (const [name, value] of Object.entries(getQuery(event)))
    query[redactTokens(name)] =
      name === 'secret' ? REDACTED : redactTokens(Array.isArray(value) ? value.join(',') : String(value))
  return query
}

/** The error body as sent (internal/errors.ts), for the log. */
const errorText = (event: H3Event, error: ApiError) =>
  JSON.stringify({
    error: {
      code: error.code,
      message: error.message,
      request_id: event.context.requestId,
      ...(error.details ? {details: error.details} : {}),
    },
  })

/** Ends the request with no answer, its connection reset, as a fault that resets it does: logged with no status. */
export function noAnswer(event: H3Event): never {
  resetConnection(event)
  throw new ConnectionReset()
}

/**
 * Ends the connection with no answer. A web request (the msw handlers) has
 * no socket: it is marked, and the msw handler answers it with a network error.
 */
function resetConnection(event: H3Event): void {
  const socket = event.node.req.socket as {destroy?: () => void} | undefined
  if (event.web || !socket?.destroy) {
    setResponseHeader(event, 'x-tablepay-connection-reset', 'true')
    return
  }
  ;(event as unknown as {_handled: boolean})._handled = true
  socket.destroy()
}
