import type {Delivery, StreamMessage, TablepayClient} from '../../client/client.js'
import {TablepayError} from '../../client/errors.js'
import type {DeliveryAttempt} from '../../domain/schemas.js'
import {newestFirst} from '../list-pages.js'
import {type CatchUp, type FollowHooks, followLiveStream} from '../reconnecting-stream.js'

/** One attempt, with the delivery as it stood once the attempt was made. */
export interface AttemptItem {
  delivery: Delivery
  attempt: DeliveryAttempt
}

/**
 * Opens the live feed of new delivery attempts (the streaming part of
 * `deliveries tail` and `listen`). Resolves once the server's stream is
 * open; the attempts then arrive as they are made. It ends when `signal`
 * aborts; the server going away is an error (`stream_ended`).
 *
 * @example
 * for await (const {delivery, attempt} of await openAttemptFeed(client, {signal})) console.log(attempt.status_code)
 */
export async function openAttemptFeed(
  client: TablepayClient,
  {signal, endpointId}: {signal: AbortSignal; endpointId?: string},
) {
  return newAttempts(untilAborted(await client.openStream({signal}), signal, client.url), {endpointId})
}

async function* untilAborted<T>(messages: AsyncIterable<T>, signal: AbortSignal, url: string): AsyncGenerator<T> {
  yield* messages
  if (!signal.aborted)
    throw new TablepayError(
      'stream_ended',
      `The server at ${url} closed the stream: it has probably stopped. Start it again, then rerun this command.`,
    )
}

/**
 * The live feed of new delivery attempts across drops (`deliveries tail`):
 * when the stream drops it reconnects (`hooks.onDrop`, `hooks.onReconnect`),
 * and first yields the attempts made meanwhile that the deliveries list
 * shows (see `attemptsSince`). It ends only when `hooks.signal` aborts.
 *
 * @example
 * const feed = await followAttempts(client, {signal, onDrop: console.warn, onReconnect: () => {}})
 */
export async function followAttempts(
  client: TablepayClient,
  {endpointId, onReset, onEndpointDeleted, onReopen, ...hooks}: FollowHooks & AttemptFilter & ReopenHook,
): Promise<AsyncGenerator<AttemptItem>> {
  return followLiveStream(
    async (signal) => newAttempts(await client.openStream({signal}), {endpointId, onReset, onEndpointDeleted}),
    attemptCatchUp(client, async () => {
      await onReopen?.()
      return endpointId
    }),
    hooks,
  )
}

/** What a feed of attempts does once its stream is open again after a drop. */
export interface ReopenHook {
  /** Awaited before the attempts made meanwhile are asked for; what it throws ends the feed. */
  onReopen?: () => Promise<unknown>
}

/**
 * How a feed of attempts catches up after its stream dropped (`deliveries
 * tail`, `listen`): the attempts `attemptsSince` finds for the endpoint
 * `endpointOf` names when asked (any endpoint when it names none).
 *
 * @example
 * followLiveStream(open, attemptCatchUp(client, () => endpointId), hooks)
 */
export function attemptCatchUp(
  client: TablepayClient,
  endpointOf: () => string | undefined | Promise<string | undefined>,
): CatchUp<AttemptItem> {
  return {
    since: async (since) => attemptsSince(client, since, await endpointOf()),
    key: attemptKey,
    time: ({attempt}) => Date.parse(attempt.at),
  }
}

/**
 * The attempts made from wall-clock time `since` (ms) on, oldest first, in
 * the deliveries created since then and those still pending (which retries
 * go on trying), at most a few pages of each. An attempt that ended an older
 * delivery meanwhile (it succeeded or died) is not among them: `deliveries
 * list` shows it.
 */
export async function attemptsSince(
  client: TablepayClient,
  since: number,
  endpointId?: string,
): Promise<AttemptItem[]> {
  const found = new Map<string, Delivery>()
  for await (const delivery of newestFirst((page) => client.listDeliveries({...page, endpoint_id: endpointId}))) {
    if (Date.parse(delivery.created_at) < since) break
    found.set(delivery.id, delivery)
  }
  const pending = (page: {limit: number; starting_after?: string}) =>
    client.listDeliveries({...page, endpoint_id: endpointId, status: 'pending'})
  for await (const delivery of newestFirst(pending)) found.set(delivery.id, delivery)
  const items = [...found.values()].flatMap((delivery) =>
    delivery.attempts.flatMap((attempt, i) =>
      Date.parse(attempt.at) < since ? [] : [{delivery: asAfter(delivery, i), attempt}],
    ),
  )
  return items.sort((a, b) => Date.parse(a.attempt.at) - Date.parse(b.attempt.at))
}

// The delivery as it stood after its attempt `i`: what a line says follows it (a retry, the end).
function asAfter(delivery: Delivery, i: number): Delivery {
  const next = delivery.attempts[i + 1]
  if (!next || next.duplicate) return delivery
  return {
    ...delivery,
    status: 'pending',
    next_attempt_at: next.scheduled_at,
    attempts: delivery.attempts.slice(0, i + 1),
  }
}

/** Which attempts a feed yields (those to `endpointId`, or all), and what it does on a restore or a deletion. */
export interface AttemptFilter {
  endpointId?: string
  /** Awaited when a restore rewrote the account, before any later attempt is yielded; what it throws ends the feed. */
  onReset?: () => Promise<unknown>
  /** Awaited with the id of each endpoint of the account deleted; what it throws ends the feed. */
  onEndpointDeleted?: (endpointId: string) => unknown
}

/**
 * An attempt's identity: its delivery, its number and its time. After a snapshot's restore the account holds the
 * attempts it put back as they were yielded, and those made since take numbers yielded before it, at later times.
 */
const attemptKey = ({delivery, attempt}: AttemptItem): string => `${delivery.id}#${attempt.attempt}@${attempt.at}`

/** How many attempts a feed remembers having yielded, the newest: a repeat of one of them is dropped. */
const REMEMBERED = 10_000

// A delivery is announced on every change: created, attempted, retried or
// canceled. Only an attempt stamps the delivery's updated_at with its own
// time, so that is how a message carrying a new attempt is told apart; the
// delivery then shows what follows that attempt (a retry, dead, done). With
// other instances on a database, one state may be announced twice: an attempt
// is yielded once (docs/postgres.md, "Changes reach the listeners in commit order").
// On a snapshot's restore (`reset`) the feed awaits `onReset` before it goes on, and on an endpoint's deletion
// `onEndpointDeleted`.
export async function* newAttempts(
  messages: AsyncIterable<StreamMessage>,
  {endpointId, onReset, onEndpointDeleted}: AttemptFilter = {},
): AsyncGenerator<AttemptItem> {
  const yielded = new Set<string>()
  for await (const message of messages) {
    if (message.type === 'reset') await onReset?.()
    if (message.type === 'endpoint_deleted') await onEndpointDeleted?.(message.data.id)
    if (message.type !== 'delivery') continue
    const delivery = message.data
    if (endpointId !== undefined && delivery.endpoint_id !== endpointId) continue
    const last = delivery.attempts.at(-1)
    if (!last || last.at !== delivery.updated_at) continue
    const item = {delivery, attempt: last}
    const key = attemptKey(item)
    if (yielded.has(key)) continue
    yielded.add(key)
    if (yielded.size > REMEMBERED) yielded.delete(yielded.values().next().value!)
    yield item
  }
}
