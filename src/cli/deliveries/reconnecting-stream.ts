import {setTimeout as delay} from 'node:timers/promises'
import type {StreamMessage, TablepayClient} from '../../client/client.js'
import {TablepayApiError, TablepayConnectionError} from '../../client/errors.js'
import {networkReason} from '../../shared/network-reason.js'

export interface ReconnectHooks {
  signal: AbortSignal
  /** The stream dropped (`reason` says how); reconnection attempts follow. */
  onDrop(reason: string): void
  /** The stream is open again; runs before any of its messages is read. */
  onReconnect(): Promise<void>
}

/** The first wait before opening a dropped stream again; it doubles up to `MAX_WAIT_MS`. */
export const FIRST_WAIT_MS = 250
export const MAX_WAIT_MS = 5000

type Messages = AsyncGenerator<StreamMessage>

/**
 * The account's live stream (`GET /sim/stream`) across drops: when the
 * server ends it or the connection breaks, it is opened again (waits of
 * 250 ms doubling to 5 s) until the server answers or `signal` aborts.
 * Resolves once the first stream is open, so nothing after that is missed;
 * a server that is not there at all is an error.
 *
 * @example
 * const messages = await openReconnectingStream(client, {signal, onDrop: console.warn, onReconnect: async () => {}})
 */
export async function openReconnectingStream(client: TablepayClient, hooks: ReconnectHooks): Promise<Messages> {
  return follow(await client.openStream({signal: hooks.signal}), client, hooks)
}

async function* follow(first: Messages, client: TablepayClient, hooks: ReconnectHooks): Messages {
  let messages: Messages | undefined = first
  while (messages) {
    let reason = 'the server closed it'
    try {
      yield* messages
    } catch (error) {
      // undici reports a broken connection as TypeError('terminated'); anything else is not a drop
      if (!(error instanceof TypeError)) throw error
      reason = networkReason(error)
    }
    if (hooks.signal.aborted) return
    hooks.onDrop(reason)
    messages = await reopen(client, hooks)
  }
}

/** The stream opened again and `onReconnect` done, or undefined once `signal` aborts first. */
async function reopen(client: TablepayClient, {signal, onReconnect}: ReconnectHooks): Promise<Messages | undefined> {
  for (let wait = FIRST_WAIT_MS; ; wait = Math.min(wait * 2, MAX_WAIT_MS)) {
    try {
      await delay(wait, undefined, {signal})
      const messages = await client.openStream({signal})
      // a server that goes away again meanwhile is one more drop
      await onReconnect()
      return messages
    } catch (error) {
      if (signal.aborted) return undefined
      if (!isTransient(error)) throw error
    }
  }
}

// A server that is down or restarting; a refused key or a missing route stays refused.
function isTransient(error: unknown): boolean {
  return error instanceof TablepayConnectionError || (error instanceof TablepayApiError && error.status >= 500)
}
