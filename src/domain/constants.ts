// The closed lists of values the API knows, apart from the zod schemas built
// on them: CLI flags offer them as choices without loading zod.

export const CHECK_STATUSES = ['open', 'closed', 'voided'] as const

/** The event types (docs/api.md, "Resources"). */
export const EVENT_TYPES = [
  'check.created',
  'check.updated',
  'check.closed',
  'check.fully_paid',
  'payment.succeeded',
  'payment.refunded',
  'claim.created',
  'feedback.received',
] as const

/**
 * `canceled`: its endpoint was disabled or deleted before the delivery could succeed. `superseded`: another
 * delivery of its event to its endpoint succeeded first (docs/api.md, "Webhooks", A success ends the retries).
 */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'dead', 'canceled', 'superseded'] as const

/**
 * What the simulator's own clients send in `X-Tablepay-Client` on their own reads: the dashboard, the CLI's tails
 * (`logs tail`, `deliveries tail`, `listen`) and scenario runs. The request log and `serve`'s access line leave
 * those out, so both show the user's traffic only (docs/api.md, "The request log").
 */
export const CLIENT_HEADER = 'x-tablepay-client'
export const OWN_CLIENTS = ['dashboard', 'cli-tail', 'scenario', 'testing'] as const

/** What the request log's routes answer with `serve --request-log 0`; the CLI adds no hint to it (docs/api.md). */
export const REQUEST_LOG_OFF =
  'The request log is off on this server (serve --request-log 0): start it with --request-log N to keep the last N requests of each account.'

/** An `Idempotency-Key` the API takes (docs/api.md, "Idempotency-Key"), and what the error says of one it does not. */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/
export const IDEMPOTENCY_KEY_RULE = 'must be 1-255 printable ASCII characters without spaces'

/**
 * A check's external id as its URL holds it (`/checks/external/{id}`): `.` and `..` alone are path segments
 * that a URL resolves away, so no request could name them.
 */
export const EXTERNAL_CHECK_ID = /^(?!\.\.?$)[A-Za-z0-9._:~@+=-]{1,64}$/

/** The longest path a request log's filter takes (`GET /sim/requests?path=`). */
export const MAX_PATH_FILTER = 2000
