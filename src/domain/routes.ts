import type {Scope} from './schemas.js'

/** How one operation of the API is reached: its method, its path under /v1 and the key scope it needs. */
export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  /** Under /v1, with OpenAPI's `{param}`: `/checks/{id}`. */
  path: string
  /** Null for a public route. */
  scope: Scope | null
  /**
   * The field every 2xx answer of it holds, by which the client tells the API's answer from another's: `object`
   * ("check", "list"…) unless named here.
   */
  answers?: string
}

/**
 * Every operation of the API by its id (the document's `operationId`), in
 * the document's order. The server declares each one's schemas and handler
 * (`src/server/operations.ts`), and the client calls it by id, so a method
 * and a path are written here only. Kept free of zod: the client loads it
 * at every command's start.
 */
export const ROUTES = {
  getHealth: {method: 'GET', path: '/health', scope: null, answers: 'status'},
  getOpenApi: {method: 'GET', path: '/openapi.json', scope: null, answers: 'openapi'},
  listLocations: {method: 'GET', path: '/locations', scope: 'read'},

  pushCheck: {method: 'PUT', path: '/checks/external/{external_check_id}', scope: 'write'},
  listChecks: {method: 'GET', path: '/checks', scope: 'read'},
  getCheck: {method: 'GET', path: '/checks/{id}', scope: 'read'},
  getCheckByExternalId: {method: 'GET', path: '/checks/external/{external_check_id}', scope: 'read'},
  listCheckClaims: {method: 'GET', path: '/checks/{id}/claims', scope: 'read'},
  listCheckPayments: {method: 'GET', path: '/checks/{id}/payments', scope: 'read'},
  listCheckFeedback: {method: 'GET', path: '/checks/{id}/feedback', scope: 'read'},
  getClaim: {method: 'GET', path: '/claims/{id}', scope: 'read'},
  getPayment: {method: 'GET', path: '/payments/{id}', scope: 'read'},
  getFeedback: {method: 'GET', path: '/feedback/{id}', scope: 'read'},

  simulateClaim: {method: 'POST', path: '/sim/checks/{id}/claims', scope: 'write'},
  simulatePayment: {method: 'POST', path: '/sim/checks/{id}/payments', scope: 'write'},
  simulateRefund: {method: 'POST', path: '/sim/payments/{id}/refund', scope: 'write'},
  simulateFeedback: {method: 'POST', path: '/sim/checks/{id}/feedback', scope: 'write'},

  listEvents: {method: 'GET', path: '/events', scope: 'read'},
  getEvent: {method: 'GET', path: '/events/{id}', scope: 'read'},

  createWebhookEndpoint: {method: 'POST', path: '/webhook-endpoints', scope: 'write'},
  listWebhookEndpoints: {method: 'GET', path: '/webhook-endpoints', scope: 'read'},
  getWebhookEndpoint: {method: 'GET', path: '/webhook-endpoints/{id}', scope: 'read'},
  deleteWebhookEndpoint: {method: 'DELETE', path: '/webhook-endpoints/{id}', scope: 'write'},
  testWebhookEndpoint: {method: 'POST', path: '/webhook-endpoints/{id}/test', scope: 'write'},

  listDeliveries: {method: 'GET', path: '/deliveries', scope: 'read'},
  getDelivery: {method: 'GET', path: '/deliveries/{id}', scope: 'read'},
  retryDelivery: {method: 'POST', path: '/deliveries/{id}/retry', scope: 'write'},

  getKey: {method: 'GET', path: '/sim/key', scope: 'read'},
  getClock: {method: 'GET', path: '/sim/clock', scope: 'read'},
  advanceClock: {method: 'POST', path: '/sim/clock/advance', scope: 'write'},
  resetClock: {method: 'POST', path: '/sim/clock/reset', scope: 'write'},
  streamEvents: {method: 'GET', path: '/sim/stream', scope: 'read'},
  resetAccount: {method: 'POST', path: '/sim/reset', scope: 'write'},
  createScratchAccount: {method: 'POST', path: '/sim/accounts', scope: 'write'},
  deleteScratchAccount: {method: 'DELETE', path: '/sim/accounts/{id}', scope: 'write'},

  // saved states of an account (docs/snapshots.md)
  saveSnapshot: {method: 'POST', path: '/sim/snapshots', scope: 'write'},
  listSnapshots: {method: 'GET', path: '/sim/snapshots', scope: 'read'},
  getSnapshot: {method: 'GET', path: '/sim/snapshots/{name}', scope: 'read'},
  deleteSnapshot: {method: 'DELETE', path: '/sim/snapshots/{name}', scope: 'write'},
  restoreSnapshot: {method: 'POST', path: '/sim/snapshots/{name}/restore', scope: 'write'},
  // write, though a read: the document holds the endpoints' signing secrets, which SPEC shows only to their registration
  exportSnapshot: {method: 'GET', path: '/sim/snapshots/{name}/export', scope: 'write', answers: 'tablepay_snapshot'},
  importSnapshot: {method: 'POST', path: '/sim/snapshots/import', scope: 'write'},

  // the receiver side (docs/api.md, "Webhooks"): updates, rotation, recovery, resend, known secrets and chaos
  updateWebhookEndpoint: {method: 'PATCH', path: '/webhook-endpoints/{id}', scope: 'write'},
  rotateWebhookSecret: {method: 'POST', path: '/webhook-endpoints/{id}/rotate-secret', scope: 'write'},
  recoverWebhookEndpoint: {method: 'POST', path: '/webhook-endpoints/{id}/recover', scope: 'write'},
  resendEvent: {method: 'POST', path: '/events/{id}/resend', scope: 'write'},
  createWebhookEndpointWithSecret: {method: 'POST', path: '/sim/webhook-endpoints', scope: 'write'},
  getListenSecret: {method: 'POST', path: '/sim/listen-secret', scope: 'write'},
  getWebhookChaos: {method: 'GET', path: '/sim/webhook-endpoints/{id}/chaos', scope: 'read'},
  setWebhookChaos: {method: 'PUT', path: '/sim/webhook-endpoints/{id}/chaos', scope: 'write'},
  endWebhookChaos: {method: 'DELETE', path: '/sim/webhook-endpoints/{id}/chaos', scope: 'write'},

  // support tracing and faults (docs/api.md, "The request log", "Faults and rate limits")
  listRequests: {method: 'GET', path: '/sim/requests', scope: 'read'},
  getRequest: {method: 'GET', path: '/sim/requests/{request_id}', scope: 'read'},
  createFault: {method: 'POST', path: '/sim/faults', scope: 'write'},
  listFaults: {method: 'GET', path: '/sim/faults', scope: 'read'},
  clearFaults: {method: 'DELETE', path: '/sim/faults', scope: 'write'},
  deleteFault: {method: 'DELETE', path: '/sim/faults/{id}', scope: 'write'},
} as const satisfies Record<string, Route>

export type RouteId = keyof typeof ROUTES

/** The names of a path's parameters: `'/checks/{id}/claims'` → `'id'`. */
export type PathParams<P extends string> = P extends `${string}{${infer Name}}${infer Rest}`
  ? Name | PathParams<Rest>
  : never

/** The values a route's path needs, by name. */
export type ParamsOf<Id extends RouteId> = Record<PathParams<(typeof ROUTES)[Id]['path']>, string>

/**
 * A value no path segment can carry: empty or `.` or `..` (a URL parser
 * resolves them, and the request would reach another route: `DELETE
 * /sim/faults/` deletes them all), text with a `?` (the server refuses a
 * path holding one, even sent as `%3F`: docs/api.md, "Paths"), or text with
 * an unpaired surrogate.
 * Known by its name where loading the routes would cost (src/cli/command.ts).
 */
export class UnsendableSegmentError extends TypeError {
  override readonly name = 'UnsendableSegmentError'

  constructor(name: string, value: string, why: string) {
    super(`${name} ${JSON.stringify(value)} ${why}`)
  }
}

/**
 * The path of route `id` with its parameters filled in, each encoded as a
 * URL segment; an `UnsendableSegmentError` for a value none can carry.
 *
 * @example
 * routePath('getCheck', {id: 'chk_1'}) // '/checks/chk_1'
 */
export function routePath<Id extends RouteId>(id: Id, params: ParamsOf<Id>): string {
  const values = params as Record<string, string>
  return ROUTES[id].path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = values[name]!
    if (value === '' || value === '.' || value === '..')
      throw new UnsendableSegmentError(name, value, 'names nothing a path can reach: give an id')
    // sent, it would be answered as a route that does not exist, as if the server's URL were wrong
    if (value.includes('?')) throw new UnsendableSegmentError(name, value, 'holds a "?", which no id does: give an id')
    try {
      return encodeURIComponent(value)
    } catch {
      // its own URIError says only "URI malformed"
      throw new UnsendableSegmentError(name, value, 'holds an unpaired surrogate, which no URL can carry')
    }
  })
}

/**
 * Whether `path` holds a `.` or `..` segment as a URL parser reads one (also written `%2e`, after a `\\`, or
 * split by a tab or line break): `fetch` resolves it away before sending, so the request would leave the route
 * written (`/v1/..` is the dashboard), and the server refuses one that reaches it (docs/api.md, "HTTP
 * details", Paths).
 *
 * @example
 * hasDotSegment('/checks/%2e%2e/x') // true
 */
export function hasDotSegment(path: string): boolean {
  // the parser drops every tab and line break first: `.\t.` is `..`
  return hasRoutedDotSegment(path.replace(/[\t\n\r]/g, '').split(/[?#]/, 1)[0]!)
}

/**
 * Whether a path as the router reads it, decoded and without its query, has a `.` or `..` segment. A tab
 * in it came as `%09`, which no URL parser drops: `.%09.` is a segment like any other. A `#` (sent as is,
 * or as `%23`) ends what a URL parser takes for the path: `..#x` is `..`.
 */
export const hasRoutedDotSegment = (path: string): boolean =>
  path
    .split('#', 1)[0]!
    .split(/[\\/]/)
    .some((segment) => /^(?:\.|%2e){1,2}$/i.test(segment))
