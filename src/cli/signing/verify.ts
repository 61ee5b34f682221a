import {
  SIGNATURE_HEADER,
  type SignatureFailureReason,
  type VerifyResult,
  verifySignature,
} from '../../webhooks/signature.js'
import {cliError} from '../cli-error.js'
import {readRawPayload, requireSecret} from './input.js'

// What to try next for each reason; the verifier's message says what went wrong.
const NEXT_STEP: Record<SignatureFailureReason, string> = {
  malformed_header: `Pass only the header's value, without "${SIGNATURE_HEADER}:", e.g. --header 't=1700000000,v1=5257a8…'.`,
  no_signature: `Copy the ${SIGNATURE_HEADER} header of the request into --header.`,
  signature_mismatch:
    'Use the secret of the endpoint that received the delivery, and the body saved byte for byte as received (not pretty-printed, no added newline).',
  timestamp_outside_tolerance:
    "Check both machines' clocks; to check a delivery captured earlier, pass a larger --tolerance.",
}

export interface VerifyInput {
  secret?: string
  header?: string
  payload?: string
  /** In seconds; the default is DEFAULT_TOLERANCE_SECONDS. */
  tolerance?: number
}

/**
 * What `tablepay verify` does once its flags are parsed, by oclif or by the
 * lean entry. A refused signature is a CLI error (exit 1, the reason as its
 * code) whose --json report is the verdict.
 */
export async function verifyDelivery(input: VerifyInput, log: (text: string) => void): Promise<VerifyResult> {
  const secret = await requireSecret(input.secret)
  const payload = await readRawPayload(input.payload)
  const result = verifySignature(payload, input.header, secret, {tolerance: input.tolerance})
  if (!result.valid) {
    const empty = payload.length === 0 ? ['The payload was empty: pass --payload FILE, or pipe the body on stdin.'] : []
    throw await cliError(result.message, {
      code: result.reason,
      suggestions: [...empty, NEXT_STEP[result.reason]],
      report: result,
    })
  }
  const age = Math.floor(Date.now() / 1000) - result.timestamp
  // past the year 275760 a Date holds no time: the signature is as valid, said by its t
  const made = new Date(result.timestamp * 1000)
  const when = Number.isNaN(made.getTime()) ? `at t=${result.timestamp}` : made.toISOString()
  log(`Valid signature, made ${when} (${age >= 0 ? `${age} s ago` : `${-age} s from now`}).`)
  return result
}
