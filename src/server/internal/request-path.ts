import type {H3Event} from 'h3'
import {ApiError} from '../../domain/errors.js'
import {hasRoutedDotSegment} from '../../domain/routes.js'

/** A request target's scheme and authority, in absolute form (`http://host:4747`). */
const SCHEME_AND_AUTHORITY = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i

/**
 * A request target in absolute form (`GET http://host/v1/checks`), which an
 * HTTP/1.1 server must accept (RFC 9112, 3.2.2), as the origin form the
 * router and auth read: its scheme and authority cut off, its path's bytes
 * kept as sent, so that `/%761/…` and dot segments meet the same rules. Any
 * other target is returned as it is.
 *
 * @example
 * originForm('http://127.0.0.1:4747/v1/health') // '/v1/health'
 */
export function originForm(target: string): string {
  const absolute = target.startsWith('/') ? null : SCHEME_AND_AUTHORITY.exec(target)
  if (!absolute) return target
  const rest = target.slice(absolute[0].length)
  return rest.startsWith('/') ? rest : `/${rest}`
}

/**
 * The path the router matches, without the query. h3 percent-decodes the
 * request's path once before routing (`/%761/sim` is `/v1/sim` to the
 * router), so auth is decided on this very string, never on the raw URL. A
 * `.` or `..` segment (sent as is or encoded) is refused rather than resolved:
 * no route has one, and the router would not resolve it either. So is a `?`
 * sent as `%3F`, which the router would take for the query's start
 * (`/v1/checks%3Flimit=1` as a list of one).
 */
export function routedPath(event: H3Event): string {
  const bare = pathOf(event)
  // a dot segment starts after a `/` or a `\`: a path without one is not walked
  if ((bare.includes('/.') || bare.includes('\\.')) && hasRoutedDotSegment(bare)) {
    throw new ApiError('not_found', 'No such route: a path may not contain "." or ".." segments.')
  }
  if (bare.includes('?')) throw new ApiError('not_found', 'No such route: a path may not contain "?" (%3F).')
  return bare
}

/** `path` without one trailing slash, which the router ignores too (`/v1/health/` is `/v1/health`). */
export const withoutTrailingSlash = (path: string): string =>
  path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path

/**
 * The request's path without its query, copied only when there is one (every request reads it). The query
 * starts at the first `?` sent as is: h3 decodes the path before it, a `%3F` too.
 */
export function pathOf(event: H3Event): string {
  const path = event.path
  if (!path.includes('?')) return path
  const sent = event.node.req.originalUrl ?? event.node.req.url ?? path
  const query = sent.indexOf('?')
  return query === -1 ? path : path.slice(0, path.length - (sent.length - query))
}
