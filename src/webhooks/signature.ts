import {createHmac, timingSafeEqual} from 'node:crypto'
import {brand} from '../shared/error-brand.js'

/**
 * The header every delivery carries. Node lower-cases incoming header names:
 * read it as `req.headers['x-tablepay-signature']`.
 */
export const SIGNATURE_HEADER = 'X-Tablepay-Signature'

/** The reference verifier's default: a delivery may be at most 5 minutes off the receiver's clock, either way. */
export const DEFAULT_TOLERANCE_SECONDS = 300
/** The widest tolerance `verify` takes: any whole number of seconds a number holds exactly. */
export const MAX_TOLERANCE_SECONDS = Number.MAX_SAFE_INTEGER

/**
 * The request body exactly as it arrived: the string or the bytes, never a
 * parsed object. `Buffer` is a `Uint8Array`.
 */
export type RawPayload = string | Uint8Array

/** Why a signature was refused, as the `tablepay verify` exit reason and in `--json` output. */
export type SignatureFailureReason =
  'malformed_header' | 'no_signature' | 'signature_mismatch' | 'timestamp_outside_tolerance'

export type VerifyResult =
  {valid: true; timestamp: number} | {valid: false; reason: SignatureFailureReason; message: string}

export interface VerifyOptions {
  /** Seconds `t` may differ from `now`, in the past or the future. Default 300; `Infinity` skips the check. */
  tolerance?: number
  /** The receiver's current time in unix seconds. Default: the system clock. */
  now?: number
}

/**
 * The header as a server framework hands it over. Node types custom headers as
 * `string | string[]`, fetch's `headers.get()` answers `null` for a missing one;
 * a repeated header arrives joined, and is refused as malformed.
 */
export type SignatureHeaderValue = string | readonly string[] | null | undefined

export interface ParsedSignatureHeader {
  /** The `t` value: when the delivery was signed, in unix seconds. */
  timestamp: number
  /** Every `v1` value, in header order. Empty when the header has none. */
  signatures: string[]
}

/**
 * A refused signature, for receivers that prefer to throw: `reason` is the
 * machine-readable code, `message` says what went wrong.
 */
export class SignatureVerificationError extends Error {
  static {
    brand(this, 'SignatureVerificationError')
  }

  constructor(
    readonly reason: SignatureFailureReason,
    message: string,
  ) {
    super(message)
    this.name = 'SignatureVerificationError'
  }
}

/**
 * The header value for `payload`: `t=<unix seconds>,v1=<lowercase hex
 * HMAC-SHA256 of "<t>.<payload>">`, keyed with the secret as its UTF-8
 * string (the whole `whsec_…`, prefix included). Given several secrets (a
 * rotation's overlap), one `v1` per secret, in their order: a receiver
 * holding any one of them verifies it.
 *
 * @example
 * const body = JSON.stringify(event)
 * await fetch(url, {method: 'POST', body, headers: {'Content-Type': 'application/json', [SIGNATURE_HEADER]: signPayload(body, secret)}})
 */
export function signPayload(
  payload: RawPayload,
  secret: string | readonly string[],
  timestamp: number = nowSeconds(),
): string {
  assertPayload(payload)
  const secrets = typeof secret === 'string' ? undefined : secret
  if (secrets === undefined) assertSecret(secret)
  else if (secrets.length === 0) assertSecret('')
  else for (const one of secrets) assertSecret(one)
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new RangeError(`tablepay: timestamp must be whole unix seconds, got ${timestamp}`)
  }
  // one secret, the usual case and every delivery outside a rotation: no list to walk
  if (secrets === undefined) return `t=${timestamp},v1=${hmacHex(payload, secret as string, timestamp)}`
  let header = `t=${timestamp}`
  for (const one of secrets) header += `,v1=${hmacHex(payload, one, timestamp)}`
  return header
}

/**
 * Splits a header value into its timestamp and `v1` signatures. Several
 * `v1` entries are kept (a sender may sign with more than one secret while
 * rotating); entries of other schemes, like `v0`, are ignored.
 *
 * @throws {SignatureVerificationError} `malformed_header` when the value is not `t=<digits>,…` with `key=value` entries.
 * @example
 * parseSignatureHeader('t=1700000000,v1=5257a8…') // {timestamp: 1700000000, signatures: ['5257a8…']}
 */
export function parseSignatureHeader(header: string): ParsedSignatureHeader {
  const malformed = (problem: string) =>
    new SignatureVerificationError(
      'malformed_header',
      `${SIGNATURE_HEADER} is malformed (${problem}): expected t=<unix seconds>,v1=<hex>, got ${quote(header)}.`,
    )
  const timestamps: string[] = []
  const signatures: string[] = []
  for (const entry of header.split(',')) {
    const separator = entry.indexOf('=')
    const key = entry.slice(0, separator).trim()
    const value = entry.slice(separator + 1).trim()
    if (separator === -1 || key === '' || value === '') throw malformed(`${quote(entry.trim())} is not key=value`)
    if (key === 't') timestamps.push(value)
    else if (key === 'v1') signatures.push(value)
  }
  // Two timestamps would make it ambiguous which one the signature covers.
  if (timestamps.length !== 1)
    throw malformed(timestamps.length === 0 ? 'no t= timestamp' : 'more than one t= timestamp')
  const timestamp = Number(timestamps[0])
  if (!/^\d+$/.test(timestamps[0]!) || !Number.isSafeInteger(timestamp))
    throw malformed(`t must be unix seconds, got ${quote(timestamps[0]!)}`)
  return {timestamp, signatures}
}

/**
 * Checks that `header` signs `payload` with `secret`, and that it was made
 * within `tolerance` seconds of `now` (either way: a future `t` is refused too).
 *
 * Pass the raw body, exactly the bytes received. A body that was parsed and
 * serialized again (`JSON.stringify(req.body)`) has other whitespace, key
 * order or escapes, so it no longer matches: in Express use
 * `express.raw({type: 'application/json'})` on the webhook route, in h3
 * `readRawBody(event, false)`, with fetch `Buffer.from(await req.arrayBuffer())`.
 *
 * @example
 * const result = verifySignature(rawBody, req.headers['x-tablepay-signature'], process.env.TABLEPAY_WEBHOOK_SECRET!)
 * if (!result.valid) return res.status(400).send(result.reason)
 */
export function verifySignature(
  payload: RawPayload,
  header: SignatureHeaderValue,
  secret: string,
  options: VerifyOptions = {},
): VerifyResult {
  try {
    return {valid: true, timestamp: assertValidSignature(payload, header, secret, options)}
  } catch (error) {
    if (!(error instanceof SignatureVerificationError)) throw error
    return {valid: false, reason: error.reason, message: error.message}
  }
}

/**
 * `verifySignature` for code that prefers exceptions: returns the signed
 * timestamp, or throws.
 *
 * @throws {SignatureVerificationError} with the `reason` code when the signature is refused.
 * @throws {TypeError} when `payload` is not a string or bytes, or `secret` is empty: a bug in the receiver, not a bad delivery.
 * @example
 * try { assertValidSignature(rawBody, req.headers['x-tablepay-signature'], secret) }
 * catch (e) { if (e instanceof SignatureVerificationError) return res.status(400).send(e.reason); throw e }
 */
export function assertValidSignature(
  payload: RawPayload,
  headerValue: SignatureHeaderValue,
  secret: string,
  options: VerifyOptions = {},
): number {
  assertPayload(payload)
  assertSecret(secret)
  const {tolerance = DEFAULT_TOLERANCE_SECONDS, now = nowSeconds()} = options
  // a value that compares false with every drift would let any timestamp through
  if (typeof tolerance !== 'number' || !(tolerance >= 0))
    throw new RangeError(`tablepay: tolerance must be seconds >= 0, got ${String(tolerance)}`)
  if (typeof now !== 'number' || !Number.isFinite(now))
    throw new RangeError(`tablepay: now must be Unix seconds, got ${String(now)}`)
  const value = headerValue ?? undefined
  const header = typeof value === 'string' || value === undefined ? value : value.join(',')
  if (header === undefined || header.trim() === '') {
    throw new SignatureVerificationError(
      'no_signature',
      `No ${SIGNATURE_HEADER} header: the request was not signed, or something on the way dropped the header.`,
    )
  }
  const {timestamp, signatures} = parseSignatureHeader(header)
  if (signatures.length === 0)
    throw new SignatureVerificationError('no_signature', `${SIGNATURE_HEADER} has no v1= signature: ${quote(header)}.`)
  // Signature before time: an old but authentic delivery is then reported as old, a forged one as forged.
  const expected = Buffer.from(hmacHex(payload, secret, timestamp))
  if (!signatures.some((signature) => sameBytes(Buffer.from(signature), expected))) {
    throw new SignatureVerificationError(
      'signature_mismatch',
      "No v1 signature matches the payload: the secret is not the endpoint's, or the body was changed after signing (parsed and re-serialized JSON, other whitespace or encoding).",
    )
  }
  const drift = now - timestamp
  if (Math.abs(drift) > tolerance) {
    const when = drift > 0 ? `${drift} s old` : `${-drift} s in the future`
    throw new SignatureVerificationError(
      'timestamp_outside_tolerance',
      `The signature is ${when} (t=${timestamp}), more than the ${tolerance} s tolerance: a replayed or late delivery, or a clock out of sync.`,
    )
  }
  return timestamp
}

function hmacHex(payload: RawPayload, secret: string, timestamp: number): string {
  // Two updates, not `${t}.${payload}`: a Buffer must be hashed as its bytes, never decoded to text first.
  return createHmac('sha256', secret).update(`${timestamp}.`).update(payload).digest('hex')
}

// timingSafeEqual throws on different lengths; the length of a hex digest is no secret.
function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b)
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000)
}

// Plain JavaScript callers can pass anything; a parsed body is the usual mistake, so name it.
function assertPayload(payload: unknown): asserts payload is RawPayload {
  if (typeof payload === 'string' || payload instanceof Uint8Array) return
  throw new TypeError(
    `tablepay: the payload must be the raw request body (string or Buffer), got ${payload === null ? 'null' : typeof payload}. ` +
      'A parsed JSON body cannot be verified: read the body raw on the webhook route.',
  )
}

// An empty secret (an unset environment variable) would let anyone sign with the empty key.
function assertSecret(secret: unknown): asserts secret is string {
  if (typeof secret !== 'string' || secret === '') {
    throw new TypeError("tablepay: the signing secret is empty: pass the endpoint's whsec_… secret.")
  }
}

function quote(text: string): string {
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text)
}
