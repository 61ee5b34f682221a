/**
 * The library entry (`import {verifySignature} from 'tablepay'`). Receivers
 * load it in production, so it carries only what verifying a delivery needs:
 * no server, no storage, no CLI.
 */
export {
  DEFAULT_TOLERANCE_SECONDS,
  SIGNATURE_HEADER,
  SignatureVerificationError,
  assertValidSignature,
  parseSignatureHeader,
  signPayload,
  verifySignature,
} from './webhooks/signature.js'
export type {
  ParsedSignatureHeader,
  RawPayload,
  SignatureFailureReason,
  SignatureHeaderValue,
  VerifyOptions,
  VerifyResult,
} from './webhooks/signature.js'
// Types only: what a receiver's handler holds after verifying. The client is `tablepay/client`, so this entry stays free of it.
export type {
  Check,
  Claim,
  Delivery,
  Event,
  EventType,
  Feedback,
  Location,
  Payment,
  WebhookEndpoint,
} from './domain/schemas.js'
