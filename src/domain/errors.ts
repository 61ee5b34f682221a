/** One entry of `details`: where in the input the problem is, and what it is. */
export interface ErrorDetail {
  path: string
  message: string
  external_id?: string
}

/**
 * The most entries of `details` an answer lists: a body with more problems (an import of 160,000 wrong records)
 * is told that there are more, not answered with all of them (docs/api.md, "HTTP details").
 */
export const MAX_DETAILS = 100

/** Every error code the API answers with, and its HTTP status. */
export const ERROR_STATUS = {
  invalid_json: 400,
  // what Node's HTTP parser refuses or waits for too long, before any route (server/internal/client-errors.ts)
  malformed_request: 400,
  unauthenticated: 401,
  payment_declined: 402,
  insufficient_scope: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict_with_paid_items: 409,
  version_conflict: 409,
  item_unavailable: 409,
  check_not_open: 409,
  endpoint_disabled: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unsupported_content_encoding: 415,
  expectation_failed: 417,
  validation_failed: 422,
  amount_exceeds_balance: 422,
  idempotency_key_reused: 422,
  event_type_not_subscribed: 422,
  limit_reached: 422,
  rate_limited: 429,
  headers_too_large: 431,
  internal_error: 500,
  // a fault of POST /v1/sim/faults: answered at the fault's status (500, 502, 503 or 504), this is the default
  simulated_fault: 503,
  storage_unavailable: 503,
  starting: 503,
} as const

export type ErrorCode = keyof typeof ERROR_STATUS

/**
 * The one error type of the service. The domain throws it; the server renders
 * it as `{"error": {code, message, request_id, details?}}`.
 *
 * @example
 * throw new ApiError('not_found', 'No check chk_123 in this account.')
 */
export class ApiError extends Error {
  readonly status: number

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
  ) {
    super(message)
    this.name = 'ApiError'
    this.status = ERROR_STATUS[code]
  }
}

/** A 422 for one field, the most common validation answer outside zod. */
export function invalidField(path: string, message: string): ApiError {
  return new ApiError('validation_failed', `${path}: ${message}`, [{path, message}])
}
