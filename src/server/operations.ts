import type {H3Event} from 'h3'
import type * as z from 'zod'
import type {ErrorCode} from '../domain/errors.js'
import {type Route, ROUTES, type RouteId} from '../domain/routes.js'
import type {AppContext} from './context.js'
import {accountOperations} from './routes/accounts.js'
import {checkOperations} from './routes/checks.js'
import {claimOperations} from './routes/claims.js'
import {clockOperations} from './routes/clock.js'
import {deliveryOperations} from './routes/deliveries.js'
import {eventOperations} from './routes/events.js'
import {faultOperations} from './routes/faults.js'
import {feedbackOperations} from './routes/feedback.js'
import {healthOperations} from './routes/health.js'
import {locationOperations} from './routes/locations.js'
import {openApiOperations} from './routes/openapi.js'
import {paymentOperations} from './routes/payments.js'
import {requestOperations} from './routes/requests.js'
import {simOperations} from './routes/sim.js'
import {simWebhookOperations} from './routes/sim-webhooks.js'
import {snapshotOperations} from './routes/snapshots.js'
import {streamOperations} from './routes/stream.js'
import {webhookEndpointOperations} from './routes/webhook-endpoints.js'

/**
 * One operation of the API as its routes file declares it, beside its
 * handler: what the document says of it, and what answers it. Its method,
 * path and scope are its route's (`ROUTES` in src/domain/routes.ts).
 */
export interface OperationSpec {
  /** The route it answers, also its `operationId`. */
  id: RouteId
  summary: string
  body?: z.ZodType
  /** The success answer, or a list of it with `list`. */
  response: z.ZodType
  list?: boolean
  /** Filters a list takes besides `limit` and `starting_after`. */
  filters?: z.ZodObject
  /** Success statuses, the usual first (default 200). */
  status?: number[]
  /** Takes `Idempotency-Key`. */
  idempotent?: boolean
  /** Response headers besides `X-Request-Id`. */
  headers?: Record<string, {description: string; schema: z.ZodType}>
  /** The answer is not JSON: `text/event-stream`. */
  contentType?: string
  /**
   * Error codes only this route answers with. Those that follow from its
   * shape (auth, scope, body, path parameters, list query, idempotency) are
   * added by the document builder.
   */
  errors?: ErrorCode[]
  /** Answers a request: returns the answer's body, or throws an `ApiError`. */
  handler: (event: H3Event, app: AppContext) => unknown
}

/** An operation with its route: what the router and the document are made from. */
export interface Operation extends OperationSpec {
  /** Its group in the document: the tag of its routes file (`TAGS`). */
  tag: string
  method: Lowercase<Route['method']>
  path: string
  scope: Route['scope']
}

/**
 * Each routes file's operations under the tag the document groups them by
 * (`tags`), with what the tag holds, in the document's order of tags.
 */
export const TAGS: {name: string; description: string; operations: OperationSpec[]}[] = [
  {name: 'Health', description: 'Whether the server is ready', operations: healthOperations},
  {name: 'Document', description: 'This OpenAPI document', operations: openApiOperations},
  {name: 'Locations', description: "The account's locations", operations: locationOperations},
  {name: 'Checks', description: 'Checks as the POS pushes them', operations: checkOperations},
  {name: 'Claims', description: 'Items guests claim at the table', operations: claimOperations},
  {name: 'Payments', description: 'What guests pay, and refunds', operations: paymentOperations},
  {name: 'Feedback', description: 'What guests say', operations: feedbackOperations},
  {name: 'Events', description: 'What changed, as webhooks deliver it', operations: eventOperations},
  {name: 'Webhook endpoints', description: 'Where events are delivered', operations: webhookEndpointOperations},
  {
    name: 'Deliveries',
    description: 'Each event sent to each endpoint, with its attempts',
    operations: deliveryOperations,
  },
  {name: 'Simulator', description: "The caller's key, and a reset of the account", operations: simOperations},
  {name: 'Clock', description: 'The scheduler clock that retries run on', operations: clockOperations},
  {name: 'Stream', description: 'New events and deliveries as they happen', operations: streamOperations},
  {name: 'Scratch accounts', description: 'Accounts made and dropped by tests', operations: accountOperations},
  {name: 'Snapshots', description: 'Saved states of an account, restored at once', operations: snapshotOperations},
  {
    name: 'Receiver testing',
    description: 'Known secrets and delivery chaos, for testing a webhook receiver',
    operations: simWebhookOperations,
  },
  {name: 'Request log', description: "The account's requests, for support tracing", operations: requestOperations},
  {name: 'Faults', description: 'Failures, delays and lost answers on purpose', operations: faultOperations},
]

/** Each route with the one operation that declares it, in the routes' order; a route declared twice or never is a bug. */
function withRoutes(tags: typeof TAGS): Operation[] {
  const byId = new Map<RouteId, OperationSpec & {tag: string}>()
  for (const {name, operations} of tags) {
    for (const spec of operations) {
      if (byId.has(spec.id)) throw new Error(`operations: ${spec.id} is declared twice`)
      byId.set(spec.id, {...spec, tag: name})
    }
  }
  return (Object.keys(ROUTES) as RouteId[]).map((id) => {
    const spec = byId.get(id)
    if (!spec) throw new Error(`operations: no operation declares route ${id}`)
    const {method, path, scope} = ROUTES[id]
    return {...spec, method: method.toLowerCase() as Operation['method'], path, scope}
  })
}

/** Every operation of the API: the router registers them, the document describes them. */
export const OPERATIONS: Operation[] = withRoutes(TAGS)

/** `/checks/{id}/claims` → `['id']`. */
export const pathParams = (path: string): string[] => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)

/** Whether a fault or the rate limit can answer for this operation: API routes, never the simulator's own. */
export const faultable = (op: Operation): boolean => op.scope !== null && !op.path.startsWith('/sim/')
