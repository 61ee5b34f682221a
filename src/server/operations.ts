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
  method: Lowercase<Route['method']>
  path: string
  scope: Route['scope']
}

const DECLARED: OperationSpec[] = [
  ...healthOperations,
  ...openApiOperations,
  ...locationOperations,
  ...checkOperations,
  ...claimOperations,
  ...paymentOperations,
  ...feedbackOperations,
  ...eventOperations,
  ...webhookEndpointOperations,
  ...deliveryOperations,
  ...simOperations,
  ...clockOperations,
  ...streamOperations,
  ...accountOperations,
  ...simWebhookOperations,
  ...requestOperations,
  ...faultOperations,
]

/** Each route with the one operation that declares it, in the routes' order; a route declared twice or never is a bug. */
function withRoutes(declared: OperationSpec[]): Operation[] {
  const byId = new Map<RouteId, OperationSpec>()
  for (const spec of declared) {
    if (byId.has(spec.id)) throw new Error(`operations: ${spec.id} is declared twice`)
    byId.set(spec.id, spec)
  }
  return (Object.keys(ROUTES) as RouteId[]).map((id) => {
    const spec = byId.get(id)
    if (!spec) throw new Error(`operations: no operation declares route ${id}`)
    const {method, path, scope} = ROUTES[id]
    return {...spec, method: method.toLowerCase() as Operation['method'], path, scope}
  })
}

/** Every operation of the API: the router registers them, the document describes them. */
export const OPERATIONS: Operation[] = withRoutes(DECLARED)

/** Whether a fault or the rate limit can answer for this operation: API routes, never the simulator's own. */
export const faultable = (op: Operation): boolean => op.scope !== null && !op.path.startsWith('/sim/')
