import {setTimeout as delay} from 'node:timers/promises'
import {TablepayApiError, TablepayConnectionError, TablepayTimeoutError} from '../client/errors.js'
import {networkReason} from '../shared/network-reason.js'

export interface ReconnectHooks<T> {
  signal: AbortSignal
  /** The stream dropped (`reason` says how); reconnection attempts follow. */
  onDrop(reason: string): void
  /**
   * The stream is open again; runs before any of its messages is read. What
   * it returns (what happened while the stream was away, when the caller can
   * ask the server for it) is yielded first.
   */
  onReconnect(): Promise<readonly T[] | void>
}

/** The first wait before opening a dropped stream again; it doubles up to `MAX_WAIT_MS`. */
export const FIRST_WAIT_MS = 250
export const MAX_WAIT_MS = 5000

/** Opens one live stream (`GET /sim/stream` read one way or another) that ends when `signal` aborts. */
export type OpenStream<T> = (signal: AbortSignal) => Promise<AsyncGenerator<T>>

/**
 * A live stream across drops (what `listen`, `deliveries tail` and `logs
 * tail` read): when the server ends it or the connection breaks, it is
 * opened again (waits of 250 ms doubling to 5 s) until the server answers or
 * `signal` aborts. Resolves once the first stream is open, so nothing after
 * that is missed (or with no messages, when `signal` aborts first); a server
 * that is not there at all is an error.
 *
 * @example
 * const messages = await openReconnectingStream((signal) => client.openStream({signal}), {
 *   signal,
 *   onDrop: console.warn,
 *   onReconnect: async () => {},
 * })
 */
export async function openReconnectingStream<T>(
  open: OpenStream<T>,
  hooks: ReconnectHooks<T>,
): Promise<AsyncGenerator<T>> {
  let first: AsyncGenerator<T>
  try {
    first = await open(hooks.signal)
  } catch (error) {
    // stopped (Ctrl+C) while the first stream opened: nothing to follow, and nothing went wrong
    if (hooks.signal.aborted) return (async function* () {})()
    throw error
  }
  return follow(first, open, hooks)
}

async function* follow<T>(first: AsyncGenerator<T>, open: OpenStream<T>, hooks: ReconnectHooks<T>): AsyncGenerator<T> {
  let messages: AsyncGenerator<T> | undefined = first
  while (messages) {
    let reason = 'the server closed it'
    try {
      yield* messages
    } catch (error) {
      // a broken connection (the client's TablepayConnectionError around undici's TypeError); anything else is not a drop
      if (!(error instanceof TablepayConnectionError)) throw error
      reason = networkReason(error.cause)
    }
    if (hooks.signal.aborted) return
    hooks.onDrop(reason)
    const reopened = await reopen(open, hooks)
    if (!reopened) return
    yield* reopened.missed
    messages = reopened.messages
  }
}

/** The stream opened again and what `onReconnect` found, or undefined once `signal` aborts first. */
async function reopen<T>(
  open: OpenStream<T>,
  {signal, onReconnect}: ReconnectHooks<T>,
): Promise<{messages: AsyncGenerator<T>; missed: readonly T[]} | undefined> {
  let wait = FIRST_WAIT_MS
  for (;;) {
    try {
      await delay(wait, undefined, {signal})
      const messages = await open(signal)
      // a server that goes away again meanwhile is one more drop
      const missed = (await onReconnect()) ?? []
      return {messages, missed}
    } catch (error) {
      if (signal.aborted) return undefined
      const next = waitAfter(error, Math.min(wait * 2, MAX_WAIT_MS))
      if (next === undefined) throw error
      wait = next
    }
  }
}

/**
 * How long to wait before opening the stream again after `error`, at least `backoff` ms; undefined when trying
 * again would not change the answer. A server that is down, restarting or too busy (5xx), or at its cap of
 * live streams (429: `/v1/sim` spends no rate limit), is tried again, its `Retry-After` waited for up to
 * `MAX_WAIT_MS`; a refused key or a missing route stays refused.
 *
 * @example
 * waitAfter(new TablepayApiError(429, body, 3), 500) // 3000
 */
export function waitAfter(error: unknown, backoff: number): number | undefined {
  if (error instanceof TablepayConnectionError || error instanceof TablepayTimeoutError) return backoff
  if (!(error instanceof TablepayApiError) || (error.status < 500 && error.status !== 429)) return undefined
  return Math.max(backoff, Math.min((error.retryAfterS ?? 0) * 1000, MAX_WAIT_MS))
}

/** How a live feed asks the server for what it missed while its stream was away. */
export interface CatchUp<T> {
  /** The records the server still shows from wall-clock time `since` (ms) on, oldest first. */
  since(since: number): Promise<T[]>
  /** A record's identity: the stream's copy of a record the catch-up yielded is dropped. */
  key(record: T): string
  /** A record's wall-clock time (ms). */
  time(record: T): number
}

export interface FollowHooks {
  signal: AbortSignal
  onDrop(reason: string): void
  /** The stream is open again, and `missed` records made while it was away come first. */
  onReconnect(missed: number): void
}

/**
 * How far before the newest record it yielded a feed's catch-up looks: with other instances on a database, a
 * change may be heard after a newer one, or never, when the database went away just after its commit
 * (docs/postgres.md, "Changes reach the listeners in commit order").
 */
export const CATCH_UP_MARGIN_MS = 10_000

/**
 * A live feed across drops that also yields what was made while its stream
 * was away, as far as the server still shows it (`catchUp`): the stream
 * carries no ids to resume from, so the feed asks for what was made from
 * CATCH_UP_MARGIN_MS before the last record it yielded on (not before its
 * start), yields what it has not yielded yet, then drops the stream's copies
 * of what that answer held.
 *
 * @example
 * const entries = await followLiveStream(open, {since: async (t) => listNewer(t), key: (e) => e.id, time: (e) => Date.parse(e.created_at)}, hooks)
 */
export async function followLiveStream<T>(
  open: OpenStream<T>,
  catchUp: CatchUp<T>,
  {signal, onDrop, onReconnect}: FollowHooks,
): Promise<AsyncGenerator<T>> {
  const started = Date.now()
  // the newest time yielded, and the keys yielded from CATCH_UP_MARGIN_MS before it on, with their times
  let newest = started
  const recent = new Map<string, number>()
  // what the last catch-up yielded, which the stream opened just before it may carry again
  let doubles = new Set<string>()
  const records = await openReconnectingStream(async (opened) => dropDoubles(await open(opened)), {
    signal,
    onDrop,
    onReconnect: async () => {
      const from = Math.max(started, newest - CATCH_UP_MARGIN_MS)
      const missed = (await catchUp.since(from)).filter((record) => !recent.has(catchUp.key(record)))
      doubles = new Set(missed.map(catchUp.key))
      onReconnect(missed.length)
      return missed
    },
  })
  return track(records)

  async function* dropDoubles(messages: AsyncGenerator<T>): AsyncGenerator<T> {
    for await (const record of messages) if (!doubles.delete(catchUp.key(record))) yield record
  }

  async function* track(all: AsyncGenerator<T>): AsyncGenerator<T> {
    for await (const record of all) {
      const time = catchUp.time(record)
      if (time > newest) {
        newest = time
        // oldest first, as they came: those past the margin go
        for (const [key, at] of recent) {
          if (at >= newest - CATCH_UP_MARGIN_MS) break
          recent.delete(key)
        }
      }
      recent.set(catchUp.key(record), time)
      yield record
    }
  }
}
