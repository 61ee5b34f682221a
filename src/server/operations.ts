import * as z from 'zod'
import type {ErrorCode} from '../domain/errors.js'
import {PUSH_RESULTS} from '../domain/push.js'
import {
  Check,
  CheckPush,
  Claim,
  ClaimInput,
  Clock,
  ClockAdvance,
  Deleted,
  Delivery,
  Event,
  ExternalCheckId,
  Feedback,
  FeedbackInput,
  KeyInfo,
  Location,
  Payment,
  PaymentInput,
  RefundInput,
  type Scope,
  ScratchAccount,
  WebhookEndpoint,
  WebhookEndpointInput,
  WebhookTestResult,
} from '../domain/schemas.js'
import {
  Chaos,
  ChaosInput,
  KnownSecretEndpointInput,
  ListenSecret,
  RecoverInput,
  Recovery,
  ResendInput,
  RotateSecretInput,
  WebhookEndpointUpdate,
} from '../domain/schemas.js'
import {Fault, FaultInput} from '../domain/faults.js'
import {RequestEntry, RequestFilters} from '../domain/request-log.js'
import {CheckFilters} from './routes/checks.js'
import {DeliveryFilters} from './routes/deliveries.js'
import {EventFilters} from './routes/events.js'

/** The answer that registers an endpoint: the only one that shows its secret. */
const WebhookEndpointWithSecret = WebhookEndpoint.extend({secret: z.string().regex(/^whsec_/)})

const FaultsCleared = z.object({object: z.literal('fault_clear'), deleted: z.int().min(0)})

const Reset = z.object({object: z.literal('reset'), deleted: z.record(z.string(), z.int().min(0))})

/** An event as delivered and listed: its `data` is the resource it is about, told apart by `object`. */
const TypedEvent = Event.extend({data: z.discriminatedUnion('object', [Check, Claim, Payment, Feedback])})

/** What `POST /webhook-endpoints/{id}/test` delivers: not an event of the account, so never listed. */
const PingEvent = Event.extend({
  type: z.literal('ping'),
  data: z.object({object: z.literal('ping'), endpoint_id: z.string()}),
})

/**
 * The schemas the document names (`#/components/schemas/<name>`); a list of
 * one of them is `<name>List`. Any other schema is written inline.
 */
export const NAMED_SCHEMAS = {
  CheckPush,
  ClaimInput,
  PaymentInput,
  RefundInput,
  FeedbackInput,
  WebhookEndpointInput,
  ClockAdvance,
  Location,
  Check,
  Claim,
  Payment,
  Feedback,
  Event: TypedEvent,
  PingEvent,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
  WebhookTestResult,
  Delivery,
  Clock,
  Deleted,
  Reset,
  ScratchAccount,
  // the receiver side: known secrets, rotation, updates, resend, recovery and chaos
  KnownSecretEndpointInput,
  WebhookEndpointUpdate,
  RotateSecretInput,
  ResendInput,
  RecoverInput,
  Recovery,
  ChaosInput,
  Chaos,
  ListenSecret,
  RequestLogEntry: RequestEntry,
  FaultInput,
  Fault,
} satisfies Record<string, z.ZodType>

/** Path parameters whose values are checked (a 422 when they do not fit); any other is a plain string. */
export const PATH_PARAMS: Record<string, z.ZodType> = {external_check_id: ExternalCheckId}

/** One route of the API, as the OpenAPI document describes it. */
export interface Operation {
  /** The `operationId`, also the name a client method would take. */
  id: string
  method: 'get' | 'post' | 'put' | 'patch' | 'delete'
  /** Under /v1, with OpenAPI's `{param}`: `/checks/{id}`. */
  path: string
  summary: string
  /** The key scope it needs; null for a public route. */
  scope: Scope | null
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
}

const get = (
  path: string,
  id: string,
  summary: string,
  response: z.ZodType,
  more: Partial<Operation> = {},
): Operation => ({
  id,
  method: 'get',
  path,
  summary,
  scope: 'read',
  response,
  ...more,
})

const list = (path: string, id: string, summary: string, item: z.ZodType, filters?: z.ZodObject): Operation =>
  get(path, id, summary, item, {list: true, filters})

const change = (
  method: 'post' | 'put' | 'patch' | 'delete',
  path: string,
  id: string,
  summary: string,
  response: z.ZodType,
  more: Partial<Operation> = {},
): Operation => ({
  id,
  method,
  path,
  summary,
  scope: 'write',
  response,
  ...more,
})

/** A guest action of the simulator: 201 unless told, idempotent, on an open check. */
const guest = (
  path: string,
  id: string,
  summary: string,
  body: z.ZodType,
  response: z.ZodType,
  more: Partial<Operation> = {},
): Operation => change('post', path, id, summary, response, {body, status: [201], idempotent: true, ...more})

/** Every route of the API. A test fails when the router and this table disagree. */
export const OPERATIONS: Operation[] = [
  get('/health', 'getHealth', 'Readiness: answers once the server is up', z.object({status: z.literal('ok')}), {
    scope: null,
  }),
  get('/openapi.json', 'getOpenApi', 'This document', z.looseObject({openapi: z.string()}), {scope: null}),
  list('/locations', 'listLocations', "The account's locations", Location),

  change(
    'put',
    '/checks/external/{external_check_id}',
    'pushCheck',
    'Push the complete current state of a check',
    Check,
    {
      body: CheckPush,
      status: [201, 200],
      errors: ['conflict_with_paid_items', 'version_conflict'],
      headers: {
        'X-Tablepay-Push-Result': {description: 'How the push changed the stored check', schema: z.enum(PUSH_RESULTS)},
      },
    },
  ),
  list('/checks', 'listChecks', 'Checks, newest first', Check, CheckFilters),
  get('/checks/{id}', 'getCheck', 'A check', Check),
  get(
    '/checks/external/{external_check_id}',
    'getCheckByExternalId',
    'A check, by the POS id it was pushed under',
    Check,
  ),
  list('/checks/{id}/claims', 'listCheckClaims', "The check's claims", Claim),
  list('/checks/{id}/payments', 'listCheckPayments', "The check's payments", Payment),
  list('/checks/{id}/feedback', 'listCheckFeedback', "The check's feedback", Feedback),
  get('/claims/{id}', 'getClaim', 'A claim', Claim),
  get('/payments/{id}', 'getPayment', 'A payment, with its refunds', Payment),
  get('/feedback/{id}', 'getFeedback', 'A feedback', Feedback),

  guest('/sim/checks/{id}/claims', 'simulateClaim', 'Simulate a guest claiming items', ClaimInput, Claim, {
    errors: ['check_not_open', 'item_unavailable'],
  }),
  guest('/sim/checks/{id}/payments', 'simulatePayment', 'Simulate a guest paying', PaymentInput, Payment, {
    errors: ['check_not_open', 'amount_exceeds_balance', 'payment_declined'],
  }),
  guest('/sim/payments/{id}/refund', 'simulateRefund', 'Simulate a refund of a payment', RefundInput, Payment, {
    status: [200],
    errors: ['amount_exceeds_balance'],
  }),
  guest('/sim/checks/{id}/feedback', 'simulateFeedback', 'Simulate a guest leaving feedback', FeedbackInput, Feedback),

  list('/events', 'listEvents', 'Events, newest first', TypedEvent, EventFilters),
  get('/events/{id}', 'getEvent', 'An event envelope', TypedEvent),

  change(
    'post',
    '/webhook-endpoints',
    'createWebhookEndpoint',
    'Register an endpoint; the answer is the only one with its secret',
    WebhookEndpointWithSecret,
    {
      body: WebhookEndpointInput,
      status: [201],
      errors: ['limit_reached'],
    },
  ),
  list('/webhook-endpoints', 'listWebhookEndpoints', 'Registered endpoints', WebhookEndpoint),
  get('/webhook-endpoints/{id}', 'getWebhookEndpoint', 'An endpoint', WebhookEndpoint),
  change(
    'delete',
    '/webhook-endpoints/{id}',
    'deleteWebhookEndpoint',
    'Delete an endpoint; its pending deliveries are canceled',
    Deleted,
  ),
  change(
    'post',
    '/webhook-endpoints/{id}/test',
    'testWebhookEndpoint',
    'Send a signed ping now and report the answer',
    WebhookTestResult,
  ),

  list('/deliveries', 'listDeliveries', 'Deliveries, newest first', Delivery, DeliveryFilters),
  get('/deliveries/{id}', 'getDelivery', 'A delivery with every attempt', Delivery),
  change('post', '/deliveries/{id}/retry', 'retryDelivery', 'Queue one more attempt now', Delivery, {
    errors: ['endpoint_disabled'],
  }),

  get('/sim/key', 'getKey', "The caller's API key: its account and scopes", KeyInfo),
  get('/sim/clock', 'getClock', 'The scheduler clock', Clock),
  change(
    'post',
    '/sim/clock/advance',
    'advanceClock',
    'Move the scheduler clock forward, running every attempt that falls due',
    Clock,
    {body: ClockAdvance},
  ),
  change(
    'post',
    '/sim/clock/reset',
    'resetClock',
    'Put the scheduler clock back on real time; pending deliveries keep their due times',
    Clock,
  ),
  get(
    '/sim/stream',
    'streamEvents',
    'Server-sent events: `event` for each new event, `delivery` for each delivery change',
    z.string(),
    {
      contentType: 'text/event-stream',
      errors: ['rate_limited'],
    },
  ),
  change(
    'post',
    '/sim/reset',
    'resetAccount',
    "Delete the account's checks and what hangs off them; keys, locations and endpoints stay",
    Reset,
  ),
  change(
    'post',
    '/sim/accounts',
    'createScratchAccount',
    "Create an empty account with copies of the caller's locations and one write key",
    ScratchAccount,
    {
      status: [201],
    },
  ),
  change(
    'delete',
    '/sim/accounts/{id}',
    'deleteScratchAccount',
    'Delete a scratch account this account made, with everything in it',
    Deleted,
  ),

  // the receiver side (docs/api.md, "Webhooks"): known secrets, rotation, updates, resend, recovery and chaos
  change(
    'patch',
    '/webhook-endpoints/{id}',
    'updateWebhookEndpoint',
    'Change the URL, event types or description',
    WebhookEndpoint,
    {
      body: WebhookEndpointUpdate,
    },
  ),
  change(
    'post',
    '/webhook-endpoints/{id}/rotate-secret',
    'rotateWebhookSecret',
    'A new secret, in this answer only; the old one signs beside it until it expires (scheduler clock)',
    WebhookEndpointWithSecret,
    {body: RotateSecretInput},
  ),
  change(
    'post',
    '/webhook-endpoints/{id}/recover',
    'recoverWebhookEndpoint',
    'Deliver again, oldest first, the subscribed events since a time that no delivery to the endpoint succeeded for',
    Recovery,
    {body: RecoverInput, status: [202], errors: ['endpoint_disabled']},
  ),
  change('post', '/events/{id}/resend', 'resendEvent', 'A new delivery of the event to one endpoint, now', Delivery, {
    body: ResendInput,
    status: [201],
    errors: ['event_type_not_subscribed', 'endpoint_disabled'],
  }),
  change(
    'post',
    '/sim/webhook-endpoints',
    'createWebhookEndpointWithSecret',
    'Register an endpoint with a secret of your choosing (CI knows it in advance)',
    WebhookEndpointWithSecret,
    {body: KnownSecretEndpointInput, status: [201], errors: ['limit_reached']},
  ),
  change(
    'post',
    '/sim/listen-secret',
    'getListenSecret',
    'The secret every `tablepay listen` of the account signs with, made on first use',
    ListenSecret,
  ),
  get('/sim/webhook-endpoints/{id}/chaos', 'getWebhookChaos', "The endpoint's delivery chaos", Chaos),
  change(
    'put',
    '/sim/webhook-endpoints/{id}/chaos',
    'setWebhookChaos',
    'Duplicate and reorder deliveries to the endpoint, seeded',
    Chaos,
    {body: ChaosInput},
  ),
  change('delete', '/sim/webhook-endpoints/{id}/chaos', 'endWebhookChaos', 'End delivery chaos', Chaos),
  // support tracing and faults (docs/api.md, "The request log", "Faults and rate limits")
  list(
    '/sim/requests',
    'listRequests',
    "The account's requests, newest first: the request log",
    RequestEntry,
    RequestFilters,
  ),
  get(
    '/sim/requests/{request_id}',
    'getRequest',
    'One logged request by its X-Request-Id: both bodies, the error, what a push moved',
    RequestEntry,
  ),
  change(
    'post',
    '/sim/faults',
    'createFault',
    'Make the next matching requests fail, slow down or lose their answer',
    Fault,
    {
      body: FaultInput,
      status: [201],
      errors: ['limit_reached'],
    },
  ),
  list('/sim/faults', 'listFaults', 'The faults still to strike, newest first', Fault),
  change('delete', '/sim/faults', 'clearFaults', 'Remove every fault of the account', FaultsCleared),
  change('delete', '/sim/faults/{id}', 'deleteFault', 'Remove one fault', Deleted),
]

/** Whether a fault or the rate limit can answer for this operation: API routes, never the simulator's own. */
export const faultable = (op: Operation): boolean => op.scope !== null && !op.path.startsWith('/sim/')
