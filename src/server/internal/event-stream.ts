import {createEventStream, type H3Event} from 'h3'
import type {Change, Store} from '../../store/store.js'

/** Where a stream gets its changes, and the signal that ends every stream when the server shuts down. */
export interface StreamSource {
  store: Store
  shutdown: AbortSignal
  /** How often a quiet stream sends a `ping` message (default 15 s). */
  keepAliveMs?: number
}

/**
 * A quiet stream still sends something this often: clients give up on a
 * body that stays silent (Node's fetch after 300 s), and so do proxies.
 */
export const KEEP_ALIVE_MS = 15_000

export interface StreamMessageOut {
  event: string
  data: unknown
}

/**
 * Answers with a server-sent event stream fed by the store's commits:
 * `select` picks the messages a commit means for this client; `first` goes
 * out before any of them (a snapshot, so nothing between a client's read and
 * its subscription is missed). The stream lasts until the client goes or the
 * server shuts down (an open stream would otherwise keep it from stopping).
 *
 * @example
 * return streamChanges(event, app, (changes) => changes.filter(([c]) => c === 'events').map(([, , r]) => ({event: 'event', data: r})))
 */
export function streamChanges(event: H3Event, {store, shutdown, keepAliveMs = KEEP_ALIVE_MS}: StreamSource, select: (changes: Change[]) => StreamMessageOut[], first: StreamMessageOut[] = []): Promise<void> {
  const stream = createEventStream(event)
  const format = (messages: StreamMessageOut[]) => messages.map((m) => ({event: m.event, data: JSON.stringify(m.data)}))
  if (first.length > 0) void stream.push(format(first))
  const unsubscribe = store.subscribe((changes) => {
    const messages = select(changes)
    if (messages.length > 0) void stream.push(format(messages))
  })
  const keepAlive = setInterval(() => void stream.push({event: 'ping', data: ''}), keepAliveMs).unref()
  const end = () => void stream.close()
  shutdown.addEventListener('abort', end, {once: true})
  stream.onClosed(() => {
    clearInterval(keepAlive)
    unsubscribe()
    shutdown.removeEventListener('abort', end)
  })
  const sending = stream.send()
  // headers go out now, not with the first message: a client knows it is subscribed before anything happens
  event.node.res.flushHeaders()
  return sending
}
