import type {AttemptResult} from '../domain/deliveries.js'
import {signingSecrets} from '../domain/endpoints.js'
import type {WebhookEndpointRecord} from '../domain/records.js'
import {type Cancelable, deliveryHeaders, postDelivery} from './send.js'

// apart from send.ts, which `verify` and `sign` load on their lean path (docs/benchmarks.md, "Start-up")

/** What an attempt needs of its endpoint: where it posts, and what signs it. */
export type SendingEndpoint = Pick<
  WebhookEndpointRecord,
  'url' | 'secret' | 'previous_secret' | 'previous_secret_expires_at'
>

/**
 * One attempt: `body` POSTed to the endpoint within `timeoutMs` (or until `held` cancels it), signed now with its secret and, during a
 * rotation's overlap on the scheduler clock (`clockNow`), its previous one too (docs/api.md, "Rotation").
 *
 * @example
 * const result = await sendAttempt(endpoint, event, body, 1, clock.now(), RECEIVER_TIMEOUT_MS)
 */
export function sendAttempt(
  endpoint: SendingEndpoint,
  event: {id: string; type: string},
  body: string,
  attempt: number,
  clockNow: number,
  timeoutMs: number,
  held?: Cancelable,
): Promise<AttemptResult> {
  const secrets = endpoint.previous_secret === undefined ? endpoint.secret : signingSecrets(endpoint, clockNow)
  return postDelivery(endpoint.url, body, deliveryHeaders(body, secrets, event, attempt), timeoutMs, held)
}
