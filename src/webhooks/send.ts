import type {AttemptResult} from '../domain/deliveries.js'
import {networkReason} from '../client/network-reason.js'
import {SIGNATURE_HEADER, signPayload} from './signature.js'

/** SPEC 8: the receiver has 10 seconds to answer. */
export const RECEIVER_TIMEOUT_MS = 10_000

/** What is kept of a receiver's answer, for the delivery log. */
const RESPONSE_LIMIT = 4096

/**
 * The headers of a delivery attempt (DESIGN "Delivery"): the signature, made
 * now, and the event id, type and attempt number. `timestamp` (unix seconds)
 * is for tests and conformance checks that need a signature from another time.
 *
 * @example
 * await postDelivery(url, body, deliveryHeaders(body, secret, {id: 'evt_1', type: 'check.created'}, 1))
 */
export function deliveryHeaders(body: string, secret: string, event: {id: string; type: string}, attempt: number, timestamp?: number): Record<string, string> {
  return {
    [SIGNATURE_HEADER]: signPayload(body, secret, timestamp),
    'X-Tablepay-Event-Id': event.id,
    'X-Tablepay-Event-Type': event.type,
    'X-Tablepay-Delivery-Attempt': String(attempt),
  }
}

/**
 * POSTs one signed body and reports what happened. Never throws: a refused
 * connection, a reset, a timeout or a redirect is a failed attempt with its
 * reason in `error`.
 */
export async function postDelivery(url: string, body: string, headers: Record<string, string>, timeoutMs = RECEIVER_TIMEOUT_MS): Promise<AttemptResult> {
  const started = performance.now()
  const duration = () => Math.round(performance.now() - started)
  try {
    const response = await fetch(url, {
      method: 'POST',
      body,
      headers: {'content-type': 'application/json', 'user-agent': 'tablepay-webhooks/1', ...headers},
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    })
    const text = await readHead(response, RESPONSE_LIMIT)
    const redirected = response.status >= 300 && response.status < 400
    return {
      status_code: response.status,
      duration_ms: duration(),
      error: redirected ? `redirect to ${response.headers.get('location') ?? '(no location)'} is not followed` : response.ok ? null : `receiver answered ${response.status}`,
      response_body: text,
    }
  } catch (error) {
    const timedOut = (error as Error).name === 'TimeoutError'
    return {
      status_code: null,
      duration_ms: duration(),
      error: timedOut ? `no answer within ${timeoutMs} ms` : networkReason(error),
      response_body: null,
    }
  }
}

/**
 * The first `limit` bytes of a body as text; the rest is never read: the
 * stream is canceled, which drops the connection. A receiver answering
 * 50 MB, or a body that never ends, costs 4 KiB (docs/api.md).
 */
async function readHead(response: Response, limit: number): Promise<string> {
  if (!response.body) return ''
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  let text = ''
  let kept = 0
  try {
    while (kept < limit) {
      const {done, value} = await reader.read()
      if (done) return text + decoder.decode()
      const part = value.subarray(0, limit - kept)
      kept += part.byteLength
      // streaming decode: a character cut at the limit is dropped, not garbled
      text += decoder.decode(part, {stream: true})
    }
    return text
  } finally {
    await reader.cancel().catch(() => undefined)
  }
}
