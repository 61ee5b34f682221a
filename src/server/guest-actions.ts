import type {H3Event} from 'h3'
import type {CheckRecord, PaymentRecord} from '../domain/records.js'
import {
  type Claim,
  ClaimInput,
  type Feedback,
  FeedbackInput,
  type Payment,
  PaymentInput,
  RefundInput,
} from '../domain/schemas.js'
import type {AppContext} from './context.js'
import {readJson} from './internal/body.js'
import {idempotentRequest, sendAnswer} from './internal/idempotency.js'

export type {Claim as ClaimResource, Feedback as FeedbackResource, Payment as PaymentResource}

// What guests do, for every route that lets them: the simulator's /v1/sim
// routes (the check found by API key) and the table page (found by its guest
// token). Each reads the body and Idempotency-Key; the service decides and writes.

/**
 * A guest claims units of the check's items: 201 and the claim.
 *
 * @example
 * const simulateClaim = {id: 'simulateClaim', …, handler: async (event, app) => claim(app, event, await findCheck(app, event))}
 */
export async function claim({service}: AppContext, event: H3Event, check: CheckRecord): Promise<Claim> {
  const input = await readJson(event, ClaimInput)
  return sendAnswer(event, await service.guests.claim(check, input, idempotentRequest(event, input)))
}

/** A guest pays (part of) what is due, plus an optional tip: 201 and the payment. */
export async function pay({service}: AppContext, event: H3Event, check: CheckRecord): Promise<Payment> {
  const input = await readJson(event, PaymentInput)
  return sendAnswer(event, await service.guests.pay(check, input, idempotentRequest(event, input)))
}

/** Refunds all or part of a payment: 200 and the payment, which now lists the refund. */
export async function refund({service}: AppContext, event: H3Event, payment: PaymentRecord): Promise<Payment> {
  const input = await readJson(event, RefundInput)
  return sendAnswer(event, await service.guests.refund(payment, input, idempotentRequest(event, input)))
}

/** A guest rates the visit on an open check: 201 and the feedback. */
export async function leaveFeedback({service}: AppContext, event: H3Event, check: CheckRecord): Promise<Feedback> {
  const input = await readJson(event, FeedbackInput)
  return sendAnswer(event, await service.guests.leaveFeedback(check, input, idempotentRequest(event, input)))
}
