import type {Errors} from '@oclif/core'
import {TablepayApiError, TablepayError, type TablepayErrorBody} from '../client/errors.js'

// What to try next for each API error code; the server's message says what went wrong.
const NEXT_STEP: Record<string, string> = {
  unauthenticated: 'Use a key that `tablepay serve` printed, via --api-key or TABLEPAY_API_KEY.',
  insufficient_scope: 'Use the account\'s write key (`tablepay serve` prints it).',
  not_found: 'Check the id: the matching list command shows what exists (`tablepay checks list`, `tablepay deliveries list`, …).',
  validation_failed: 'Fix the fields listed above and send the request again.',
  conflict_with_paid_items: 'Guests already claimed or paid: keep claimed items, their price and quantity, and a total of at least what was paid (or refund first).',
  item_unavailable: 'See what is left with `tablepay checks get ID` and claim at most that.',
  check_not_open: 'Guests can only claim and pay an open check: push it with "status": "open" first.',
  amount_exceeds_balance: 'See what is due with `tablepay checks get ID` (or the payment\'s refunds) and send at most that.',
  payment_declined: 'The decline was simulated: send the payment again without --decline.',
  idempotency_key_reused: 'Use a new --idempotency-key for a new request.',
  version_conflict: 'Send the change with a higher "version".',
  payload_too_large: 'Send at most 1 MiB.',
  storage_unavailable: 'Free space on the disk of the server\'s data dir, restart `tablepay serve`, then send the request again.',
}

/** The human text of a client error: the message, each detail on its own line, and the request id for support tracing. */
export function describeError(error: TablepayError): string {
  if (!(error instanceof TablepayApiError)) return error.message
  const details = (error.details ?? []).map((d) => `  - ${d.path}: ${d.message}${d.external_id ? ` (${d.external_id})` : ''}`)
  const request = error.requestId ? [`Request id: ${error.requestId}`] : []
  return [error.message, ...details, ...request].join('\n')
}

export function suggestionsFor(error: TablepayError): string[] | undefined {
  const next = NEXT_STEP[error.code]
  return next ? [next] : undefined
}

/**
 * Any failure in the API's error body shape, so `--json` callers parse one
 * format whether the server or the CLI refused.
 */
export function errorBody(error: unknown): TablepayErrorBody {
  if (error instanceof TablepayError) return error.toJSON()
  const {code, message} = error as Partial<Errors.CLIError>
  // oclif's parser errors carry `parse` and no code: a wrong command line
  const fallback = error !== null && typeof error === 'object' && 'parse' in error ? 'invalid_usage' : 'cli_error'
  return {error: {code: code ?? fallback, message: message ?? String(error)}}
}
