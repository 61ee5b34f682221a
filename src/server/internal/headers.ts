import type {H3Event} from 'h3'

/**
 * A request header by its lowercase name. h3's `getRequestHeader` copies
 * every header into a new object on each call; this runs several times per
 * request, so it reads Node's own (already lowercase) header object.
 */
export function requestHeader(event: H3Event, name: string): string | undefined {
  const value = event.node.req.headers[name]
  return Array.isArray(value) ? value.join(', ') : value
}
