import type {Delivery, StreamMessage, TablepayClient} from '../client/client.js'
import {TablepayError} from '../client/errors.js'

type Attempt = Delivery['attempts'][number]

/**
 * Opens the live feed of new delivery attempts (the streaming part of
 * `deliveries tail` and `listen`). Resolves once the server's stream is
 * open; the attempts then arrive as they are made. It ends when `signal`
 * aborts; the server going away is an error (`stream_ended`).
 *
 * @example
 * for await (const {delivery, attempt} of await openAttemptFeed(client, {signal})) console.log(attempt.status_code)
 */
export async function openAttemptFeed(client: TablepayClient, {signal, endpointId}: {signal: AbortSignal; endpointId?: string}) {
  return newAttempts(untilAborted(await client.openStream({signal}), signal, client.url), endpointId)
}

async function* untilAborted<T>(messages: AsyncIterable<T>, signal: AbortSignal, url: string): AsyncGenerator<T> {
  yield* messages
  if (!signal.aborted) throw new TablepayError('stream_ended', `The server at ${url} closed the stream: it has probably stopped. Start it again, then rerun this command.`)
}

// A delivery is announced on every change (created, attempted, retried,
// canceled); an attempt is new when the delivery has more than last seen.
async function* newAttempts(messages: AsyncIterable<StreamMessage>, endpointId?: string): AsyncGenerator<{delivery: Delivery; attempt: Attempt}> {
  const seen = new Map<string, number>()
  for await (const message of messages) {
    if (message.type !== 'delivery') continue
    const delivery = message.data
    if (endpointId !== undefined && delivery.endpoint_id !== endpointId) continue
    const before = seen.get(delivery.id) ?? 0
    seen.set(delivery.id, delivery.attempts.length)
    for (const attempt of delivery.attempts.slice(before)) yield {delivery, attempt}
  }
}
