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
