import type {RequestEntry, RequestFilters, RequestStreamMessage, TablepayClient} from '../../client/client.js'
import {requestMatches} from '../../domain/request-log.js'
import {newestFirst} from '../list-pages.js'
import {type FollowHooks, followLiveStream} from '../reconnecting-stream.js'

/**
 * The account's logged requests that pass `filters`, live, across drops
 * (`logs tail`): when the stream drops it reconnects (`hooks.onDrop`,
 * `hooks.onReconnect`) and first yields the requests logged meanwhile that
 * the request log still holds (a restarted server's log starts empty: what
 * it answered before the tail was back is there, what the old one answered
 * after the drop is gone). It ends only when `hooks.signal` aborts.
 *
 * @example
 * for await (const entry of await followRequests(client, {status: '4xx'}, hooks)) console.log(entry.path)
 */
export async function followRequests(
  client: TablepayClient,
  filters: RequestFilters,
  hooks: FollowHooks,
): Promise<AsyncGenerator<RequestEntry>> {
  return followLiveStream(
    async (signal) => requestsOf(await client.openRequestStream({signal}), filters),
    {
      since: (since) => requestsSince(client, since, filters),
      // a caller may send the same X-Request-Id twice: its time tells the two apart
      key: (entry) => `${entry.id}@${entry.created_at}`,
      time: (entry) => Date.parse(entry.created_at),
    },
    hooks,
  )
}

async function* requestsOf(messages: AsyncIterable<RequestStreamMessage>, filters: RequestFilters) {
  for await (const message of messages)
    if (message.type === 'request' && requestMatches(message.data, filters)) yield message.data
}

/** The logged requests that pass `filters`, from wall-clock time `since` (ms) on, oldest first (a few pages at most). */
export async function requestsSince(
  client: TablepayClient,
  since: number,
  filters: RequestFilters,
): Promise<RequestEntry[]> {
  const entries: RequestEntry[] = []
  for await (const entry of newestFirst((page) => client.listRequests({...page, ...filters}))) {
    if (Date.parse(entry.created_at) < since) break
    entries.push(entry)
  }
  return entries.reverse()
}
