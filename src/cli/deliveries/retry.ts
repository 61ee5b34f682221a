import type {Delivery, TablepayClient} from '../../client/client.js'
// a receiver has this long to answer the attempt (docs/api.md "Webhooks")
import {RECEIVER_TIMEOUT_MS} from '../../webhooks/send.js'
import {openAttemptFeed} from './attempt-feed.js'

/** How long `deliveries retry` waits for its attempt: the receiver's time to answer, and some for the scheduler. */
export const RETRY_WAIT_MS = RECEIVER_TIMEOUT_MS + 5_000

export interface RetryOutcome {
  /** The delivery after its new attempt, or as queued when the attempt did not come in time. */
  delivery: Delivery
  attempted: boolean
}

/**
 * Queues one more attempt of delivery `id`, then waits for it on the live
 * feed (opened first, so the attempt cannot slip by) for at most `waitMs`.
 *
 * @example
 * const {delivery, attempted} = await retryAndWait(client, 'dlv_4f0b6k2m9q1x8s7d3a5z')
 */
export async function retryAndWait(client: TablepayClient, id: string, waitMs = RETRY_WAIT_MS): Promise<RetryOutcome> {
  if (waitMs <= 0) return {delivery: await client.retryDelivery(id), attempted: false}
  // its attempts before the retry: the server may run the new one before it answers
  const before = (await client.getDelivery(id)).attempts.length
  const stop = new AbortController()
  const timer = setTimeout(() => stop.abort(), waitMs)
  try {
    const feed = await openAttemptFeed(client, {signal: stop.signal})
    const queued = await client.retryDelivery(id)
    for await (const {delivery} of feed) {
      if (delivery.id === id && ownAttempt(delivery, before, queued)) return {delivery, attempted: true}
    }
    return {delivery: queued, attempted: false}
  } finally {
    clearTimeout(timer)
    stop.abort()
  }
}

/**
 * Whether `delivery` holds the attempt the retry queued: one past the `before` it had, due when the
 * retry made it due. An attempt already out when the retry came is recorded first, due earlier: it
 * is not the retry's (both times are the server's scheduler clock).
 */
function ownAttempt(delivery: Delivery, before: number, queued: Delivery): boolean {
  const due = queued.next_attempt_at === null ? -Infinity : Date.parse(queued.next_attempt_at)
  return delivery.attempts.slice(before).some((attempt) => Date.parse(attempt.scheduled_at) >= due)
}
