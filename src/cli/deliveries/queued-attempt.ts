import type {Delivery, TablepayClient} from '../../client/client.js'
import {formatDuration} from '../../domain/duration.js'
// a receiver has this long to answer the attempt (docs/api.md "Webhooks")
import {RECEIVER_TIMEOUT_MS} from '../../webhooks/send.js'
import {renderDeliveryDetail, renderRetryFailed} from '../views/delivery.js'
import {style} from '../views/style.js'
import {openAttemptFeed} from './attempt-feed.js'

/** How long `deliveries retry` and `events resend` wait for their attempt: the receiver's time to answer, and some for the scheduler. */
export const ATTEMPT_WAIT_MS = RECEIVER_TIMEOUT_MS + 5_000

export interface AttemptOutcome {
  /** The delivery after its new attempt, or as queued when the attempt did not come in time. */
  delivery: Delivery
  attempted: boolean
  /** Queued due later than the wait (the endpoint's delivery chaos holds it back): how much later, in ms. */
  heldMs?: number
  /** Waited for and not seen: how long it was waited for, in ms (it may be out to a slow receiver). */
  waitedMs?: number
}

/**
 * The clients a command queues and waits with: `write` for the change, which the request log shows, and
 * `read` for the reads that only draw the wait (a CLI tail's, left out of it: docs/api.md, "The request log").
 */
export interface Clients {
  write: TablepayClient
  read: TablepayClient
}

/**
 * Queues one more attempt of delivery `id`, then waits for it (`queueAndWait`).
 *
 * @example
 * const {delivery, attempted} = await retryAndWait({write: client, read: tailClient}, 'dlv_4f0b6k2m9q1x8s7d3a5z')
 */
export async function retryAndWait(
  {write, read}: Clients,
  id: string,
  waitMs = ATTEMPT_WAIT_MS,
): Promise<AttemptOutcome> {
  if (waitMs <= 0) return {delivery: await write.retryDelivery(id), attempted: false}
  // its attempts before the retry: the server may run the new one before it answers
  const before = (await read.getDelivery(id)).attempts.length
  return queueAndWait(read, () => write.retryDelivery(id), before, waitMs)
}

/**
 * Resends event `eventId` to endpoint `endpointId`, then waits for the new delivery's first attempt (`queueAndWait`).
 *
 * @example
 * const {attempted} = await resendAndWait({write: client, read: tailClient}, 'evt_4f0b6k2m9q1x8s7d3a5z', 'we_4f0b6k2m9q1x8s7d3a5z')
 */
export function resendAndWait(
  {write, read}: Clients,
  eventId: string,
  endpointId: string,
  waitMs = ATTEMPT_WAIT_MS,
): Promise<AttemptOutcome> {
  return queueAndWait(read, () => write.resendEvent(eventId, endpointId), 0, waitMs)
}

/**
 * Runs `queue`, which makes an attempt of a delivery due, then waits for that attempt on the live feed
 * (opened first, so the attempt cannot slip by) for at most `waitMs`. `before`: the attempts the
 * delivery had already.
 */
async function queueAndWait(
  read: TablepayClient,
  queue: () => Promise<Delivery>,
  before: number,
  waitMs: number,
): Promise<AttemptOutcome> {
  if (waitMs <= 0) return {delivery: await queue(), attempted: false}
  const stop = new AbortController()
  const timer = setTimeout(() => stop.abort(), waitMs)
  try {
    const feed = await openAttemptFeed(read, {signal: stop.signal})
    const queued = await queue()
    // due later on the scheduler clock than the wait lasts (a reorder window): no use waiting for it
    const heldMs = await dueIn(read, queued)
    if (heldMs > waitMs) return {delivery: queued, attempted: false, heldMs}
    for await (const {delivery} of feed) {
      if (delivery.id === queued.id && ownAttempt(delivery, before, queued)) return {delivery, attempted: true}
    }
    return {delivery: queued, attempted: false, waitedMs: waitMs}
  } finally {
    clearTimeout(timer)
    stop.abort()
  }
}

/** How long until `delivery`'s next attempt is due, on the server's scheduler clock, in ms; 0 when due. */
async function dueIn(client: TablepayClient, delivery: Delivery): Promise<number> {
  if (delivery.next_attempt_at === null) return 0
  return Math.max(0, Date.parse(delivery.next_attempt_at) - Date.parse((await client.getClock()).now))
}

/**
 * Whether `delivery` holds the attempt that was queued: one past the `before` it had, due when the
 * queuing made it due. An attempt already out when a retry came is recorded first, due earlier: it
 * is not the retry's (both times are the server's scheduler clock).
 */
function ownAttempt(delivery: Delivery, before: number, queued: Delivery): boolean {
  const due = queued.next_attempt_at === null ? -Infinity : Date.parse(queued.next_attempt_at)
  return delivery.attempts.slice(before).some((attempt) => Date.parse(attempt.scheduled_at) >= due)
}

/**
 * What `deliveries retry` and `events resend` show of their attempt: the delivery with it, or that it
 * is queued; a failed attempt sets exit code 1, so `… && next` goes on only once the receiver took it.
 * Resolves with the `--json` output: the delivery, with `attempted`.
 *
 * @example
 * return reportAttempt(await resendAndWait(client, eventId, endpointId), (text) => this.log(text))
 */
export function reportAttempt({delivery, attempted, heldMs, waitedMs}: AttemptOutcome, log: (text: string) => void) {
  log(renderDeliveryDetail(delivery))
  if (heldMs !== undefined) {
    const held = formatDuration(Math.ceil(heldMs / 1000))
    log(
      style.dim(
        `Attempt queued, due in ${held} on the scheduler clock: the endpoint's delivery chaos holds it back. ` +
          `\`tablepay clock advance ${held}\` makes it now.`,
      ),
    )
  } else if (!attempted) {
    const tail = `tablepay deliveries tail --endpoint ${delivery.endpoint_id}`
    // a receiver given longer than the wait by `serve --receiver-timeout` may still be answering it
    const state =
      waitedMs === undefined
        ? 'Attempt queued'
        : `No attempt ended within ${formatDuration(waitedMs / 1000)}: it is queued, or out to a slow receiver`
    log(style.dim(`${state}; \`${tail}\` shows it when it ends.`))
  } else if (delivery.status !== 'succeeded') {
    log(renderRetryFailed(delivery))
    process.exitCode = 1
  }
  return {...delivery, attempted}
}
