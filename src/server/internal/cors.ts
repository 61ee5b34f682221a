import type {H3Event} from 'h3'
import {requestHeader} from './headers.js'

/**
 * The answer headers a browser page may read, besides the safelisted ones: a POS page must
 * see Retry-After and the rate limit to back off from a 429 or 503 (docs/api.md, "Faults and rate limits").
 */
const EXPOSED =
  'X-Request-Id, X-Tablepay-Push-Result, Idempotent-Replayed, WWW-Authenticate, Allow, ' +
  'Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-Tablepay-Fault'
const METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE'

/**
 * Which web pages on other origins may call the API (`serve --cors`): the
 * public routes answer any origin; the rest only the origins given, `*`
 * meaning all (docs/api.md, CORS). Read only for requests with an Origin.
 */
export class CorsPolicy {
  readonly #origins: ReadonlySet<string>
  readonly #any: boolean

  constructor(origins: readonly string[] = []) {
    this.#origins = new Set(origins)
    this.#any = this.#origins.has('*')
  }

  /**
   * Adds the CORS headers `origin` gets on this request. True when the
   * request is a preflight it answers: the caller ends it with 204, before
   * auth (a browser never sends credentials with a preflight).
   */
  apply(event: H3Event, origin: string, isPublic: boolean): boolean {
    const res = event.node.res
    if (!isPublic) {
      if (!this.#any && !this.#origins.has(origin)) return false
      res.setHeader('access-control-allow-origin', this.#any ? '*' : origin)
      if (!this.#any) res.setHeader('vary', 'Origin')
    }
    res.setHeader('access-control-expose-headers', EXPOSED)
    const asked = requestHeader(event, 'access-control-request-method')
    if (event.method !== 'OPTIONS' || asked === undefined) return false
    res.setHeader('access-control-allow-methods', METHODS)
    const headers = requestHeader(event, 'access-control-request-headers')
    if (headers) res.setHeader('access-control-allow-headers', headers)
    res.setHeader('access-control-max-age', '600')
    return true
  }
}
