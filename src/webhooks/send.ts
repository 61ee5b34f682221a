import http from 'node:http'
import https from 'node:https'
import type {AttemptResult} from '../domain/deliveries.js'
import {networkReason} from '../shared/network-reason.js'
import {type RawPayload, SIGNATURE_HEADER, signPayload} from './signature.js'

/** The receiver has 10 seconds to answer (docs/api.md, "Webhooks"). */
export const RECEIVER_TIMEOUT_MS = 10_000

/** What is kept of a receiver's answer, for the delivery log. */
const RESPONSE_LIMIT = 4096

/**
 * Every header of a delivery attempt but its length (docs/api.md, "Webhooks"): the body's type, the
 * sender, the signature, made now (one `v1` per secret given), and the event id, type and attempt
 * number. The one place they are made: the dispatcher, `receiver check` and `sign --forward-to` send
 * these. `event` is undefined only for `sign --forward-to` of a body that is not an event, which has
 * no id or type to name. `timestamp` (unix seconds) is for tests and conformance checks that need a
 * signature from another time.
 *
 * @example
 * await postDelivery(url, body, deliveryHeaders(body, secret, {id: 'evt_1', type: 'check.created'}, 1))
 */
export function deliveryHeaders(
  body: RawPayload,
  secret: string | readonly string[],
  event: {id: string; type: string} | undefined,
  attempt: number,
  timestamp?: number,
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'tablepay-webhooks/1',
    [SIGNATURE_HEADER]: signPayload(body, secret, timestamp),
    ...(event && {'X-Tablepay-Event-Id': event.id, 'X-Tablepay-Event-Type': event.type}),
    'X-Tablepay-Delivery-Attempt': String(attempt),
  }
}

/** Why an attempt let go ended: only a test ping's answer shows it, as an attempt let go is never recorded. */
const LET_GO = 'canceled: the server is stopping'

/**
 * What holds a request under way, to cancel it (a dispatcher's attempt out): a function, not an `AbortSignal`,
 * whose listener on a signal of its own cost about 8 µs per attempt.
 */
export interface Cancelable {
  cancel?: () => void
  /** Set when it was let go before its request went out: the request is not made (src/webhooks/flights.ts). */
  readonly letGo?: boolean
}

/**
 * Kept-alive connections: a receiver gets attempts over the same sockets.
 * Idle ones do not keep a process alive (a CLI run ends as usual), and close
 * after 4 s: a receiver that never closes them, or an endpoint deleted or
 * moved, would otherwise hold its sockets for as long as the server runs.
 */
const KEPT = {keepAlive: true, timeout: 4000}
const AGENTS = {'http:': new http.Agent(KEPT), 'https:': new https.Agent(KEPT)}

/** The statuses that redirect (RFC 9110, 15.4): a 304 or 300 answers, with nowhere to go. */
const REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308])

/**
 * POSTs one signed body with the `headers` of `deliveryHeaders` and reports what happened. Never throws: a refused
 * connection, a reset, a timeout, a redirect or a cancel through `held` (which holds one while the request is out)
 * is a failed attempt with its reason in `error`. The timeout covers the answer's body too; of the body,
 * the first 4 KiB are kept and the rest is never read: the connection is
 * dropped, so a huge or endless answer costs 4 KiB (docs/api.md "Webhooks").
 *
 * node:http rather than fetch: an attempt costs about half the CPU, and the
 * dispatcher shares the process with every push (docs/benchmarks.md).
 */
export function postDelivery(
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs = RECEIVER_TIMEOUT_MS,
  held?: Cancelable,
): Promise<AttemptResult> {
  const started = performance.now()
  const duration = () => Math.round(performance.now() - started)
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined
    let finished = false
    const finish = (result: Omit<AttemptResult, 'duration_ms'>) => {
      if (finished) return
      finished = true
      clearTimeout(timer)
      if (held) held.cancel = undefined
      resolve({...result, duration_ms: duration()})
    }
    const fail = (error: string) => finish({status_code: null, error, response_body: null})
    if (held?.letGo) return fail(LET_GO)
    let target: URL
    try {
      target = new URL(url)
    } catch {
      return fail(`${url} is not a URL`)
    }
    const payload = Buffer.from(body)
    let request: http.ClientRequest
    try {
      request = (target.protocol === 'https:' ? https : http).request(target, {
        method: 'POST',
        agent: AGENTS[target.protocol as keyof typeof AGENTS],
        headers: {'content-length': payload.length, ...headers},
      })
    } catch (error) {
      // a scheme other than http(s), or a header value that cannot be sent
      return fail(networkReason({cause: error}))
    }
    const giveUp = (why: string) => {
      fail(why)
      request.destroy()
    }
    // once its status came, the answer is that status, with the body read by the timeout or a socket error
    let answered: (() => Omit<AttemptResult, 'duration_ms'>) | undefined
    timer = setTimeout(() => {
      if (answered) finish(answered())
      giveUp(`no answer within ${timeoutMs} ms`)
    }, timeoutMs)
    // a socket error wrapped as fetch wraps it, so the reason reads the same (ECONNREFUSED, ECONNRESET…)
    request.on('error', (error) => {
      // after the status, the body read first: what came in the packet with the error is still being passed on
      if (answered) setImmediate(() => finish(answered!()))
      else fail(networkReason({cause: error}))
    })
    // a 101 with Upgrade is handed over as a socket, not answered: Node would close it and wait for the timeout
    request.on('upgrade', (response, socket) => {
      socket.destroy()
      finish(answer(response, ''))
    })
    request.on('response', (response) => {
      const head = readHead(response, RESPONSE_LIMIT)
      answered = () => answer(response, head.read())
      head.done.then(
        (text) => finish(answer(response, text)),
        () => finish(answered!()),
      )
    })
    // an attempt let go, by a stop or a restore, is never recorded (src/webhooks/flights.ts)
    if (held) held.cancel = () => giveUp(LET_GO)
    request.end(payload)
  })
}

function answer(response: http.IncomingMessage, text: string): Omit<AttemptResult, 'duration_ms'> {
  const status = response.statusCode ?? 0
  const redirected = REDIRECTS.has(status)
  const ok = status >= 200 && status < 300
  const refused = redirected
    ? `redirect to ${response.headers.location ?? '(no location)'} is not followed`
    : `receiver answered ${status}`
  // a NUL byte is kept as U+FFFD, as a byte that is not UTF-8 is: PostgreSQL's JSON functions refuse a record
  // that holds one anywhere, and its next attempt's claim reads the delivery's record (docs/api.md, "Webhooks")
  return {status_code: status, error: ok ? null : refused, response_body: text.replaceAll('\0', '\uFFFD')}
}

/**
 * The first `limit` bytes of a body as text: `done` resolves with them when the body ends or once it has them
 * (the connection is then destroyed rather than the rest read); `read` gives what came so far.
 */
function readHead(response: http.IncomingMessage, limit: number): {done: Promise<string>; read: () => string} {
  const decoder = new TextDecoder()
  let text = ''
  let kept = 0
  const done = new Promise<string>((resolve, reject) => {
    response.on('data', (chunk: Buffer) => {
      const part = chunk.subarray(0, limit - kept)
      kept += part.byteLength
      // streaming decode: a character cut at the limit is dropped, not garbled
      text += decoder.decode(part, {stream: true})
      if (kept < limit) return
      response.destroy()
      resolve(text)
    })
    response.on('end', () => resolve(text + decoder.decode()))
    response.on('error', reject)
  })
  return {done, read: () => text}
}
