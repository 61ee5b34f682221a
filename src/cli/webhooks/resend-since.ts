import type {Event, TablepayClient, WebhookEndpoint} from '../../client/client.js'
import {newestFirst} from '../list-pages.js'

/**
 * Sends `endpoint` each event of its types created from `since` until the endpoint was (`listen --since`),
 * oldest first, one resend each: a recovery takes only events an endpoint had a delivery of, and a new
 * endpoint has none (docs/api.md, "Webhooks", Recovery). Resolves with how many.
 *
 * @example
 * const count = await resendSince(client, endpoint, '2026-11-25T08:00:00.000Z')
 */
export async function resendSince(
  client: TablepayClient,
  endpoint: Pick<WebhookEndpoint, 'id' | 'event_types' | 'created_at'>,
  since: string,
): Promise<number> {
  const from = Date.parse(since)
  const missed: Event[] = []
  // the whole window the caller asked for, not a catch-up's few pages
  for await (const event of newestFirst((page) => client.listEvents(page), Infinity)) {
    if (Date.parse(event.created_at) < from) break
    // one made since the endpoint was has its own delivery already
    if (event.created_at < endpoint.created_at && endpoint.event_types.includes(event.type)) missed.push(event)
  }
  for (const event of missed.reverse()) await client.resendEvent(event.id, endpoint.id)
  return missed.length
}
