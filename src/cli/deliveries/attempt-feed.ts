import type {Delivery, StreamMessage, TablepayClient} from '../../client/client.js'
import {TablepayError} from '../../client/errors.js'
import type {DeliveryAttempt} from '../../domain/schemas.js'

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
  return newAttempts(untilAborted(await client.openStream({signal}), signal, client.url), endpointId)
}

async function* untilAborted<T>(messages: AsyncIterable<T>, signal: AbortSignal, url: string): AsyncGenerator<T> {
  yield* messages
  if (!signal.aborted)
    throw new TablepayError(
      'stream_ended',
      `The server at ${url} closed the stream: it has probably stopped. Start it again, then rerun this command.`,
    )
}

// A delivery is announced on every change: created, attempted, retried or
// canceled. Only an attempt stamps the delivery's updated_at with its own
// time, so that is how a message carrying a new attempt is told apart; the
// delivery then shows what follows that attempt (a retry, dead, done).
export async function* newAttempts(
  messages: AsyncIterable<StreamMessage>,
  endpointId?: string,
): AsyncGenerator<{delivery: Delivery; attempt: DeliveryAttempt}> {
  for await (const message of messages) {
    if (message.type !== 'delivery') continue
    const delivery = message.data
    if (endpointId !== undefined && delivery.endpoint_id !== endpointId) continue
    const last = delivery.attempts.at(-1)
    if (last && last.at === delivery.updated_at) yield {delivery, attempt: last}
  }
}
