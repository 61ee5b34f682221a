import type {H3Event} from 'h3'
import {applyClaim, renderClaim} from '../domain/claims.js'
import {ApiError} from '../domain/errors.js'
import {applyFeedback, renderFeedback} from '../domain/feedback.js'
import {applyPayment, applyRefund, renderPayment} from '../domain/payments.js'
import type {CheckRecord, PaymentRecord} from '../domain/records.js'
import {type Claim, ClaimInput, type Feedback, FeedbackInput, type Payment, PaymentInput, RefundInput} from '../domain/schemas.js'
import {put} from '../store/store.js'
import type {AppContext} from './context.js'
import {readJson} from './internal/body.js'
import {idempotent} from './internal/idempotency.js'

export type {Claim as ClaimResource, Feedback as FeedbackResource, Payment as PaymentResource}

// What guests do, for every route that lets them: the simulator's /v1/sim
// routes (the check found by API key) and the table page (found by its guest
// token). Each reads the body, honours Idempotency-Key, decides on the
// current state and commits once, with its events.

/**
 * The record as it is now. The caller found it before the body was read, and
 * another request may have changed it (or a reset removed it) since.
 */
function current<T>(table: {get(id: string): T | undefined}, id: string, noun: string): T {
  const record = table.get(id)
  if (!record) throw new ApiError('not_found', `No ${noun} ${id} in this account.`)
  return record
}

/**
 * A guest claims units of the check's items: 201 and the claim.
 *
 * @example
 * router.post('/v1/sim/checks/:id/claims', defineEventHandler((event) => claim(app, event, findCheck(app, event))))
 */
export async function claim(app: AppContext, event: H3Event, check: CheckRecord): Promise<Claim> {
  const input = await readJson(event, ClaimInput)
  return idempotent(app, event, check.account_id, input, () => {
    const outcome = applyClaim(current(app.store.tables.checks, check.id, 'check'), input, app.now(), app.baseUrl)
    return {
      status: 201,
      body: renderClaim(outcome.claim),
      changes: [put('checks', outcome.check.id, outcome.check), put('claims', outcome.claim.id, outcome.claim), ...app.outbox(outcome.events)],
    }
  })
}

/** A guest pays (part of) what is due, plus an optional tip: 201 and the payment. */
export async function pay(app: AppContext, event: H3Event, check: CheckRecord): Promise<Payment> {
  const input = await readJson(event, PaymentInput)
  return idempotent(app, event, check.account_id, input, () => {
    const claimed = input.claim_id === undefined ? undefined : app.store.tables.claims.get(input.claim_id)
    const outcome = applyPayment(current(app.store.tables.checks, check.id, 'check'), input, app.now(), app.baseUrl, claimed)
    return {
      status: 201,
      body: renderPayment(outcome.payment),
      changes: [put('checks', outcome.check.id, outcome.check), put('payments', outcome.payment.id, outcome.payment), ...app.outbox(outcome.events)],
    }
  })
}

/** Refunds all or part of a payment: 200 and the payment, which now lists the refund. */
export async function refund(app: AppContext, event: H3Event, payment: PaymentRecord): Promise<Payment> {
  const input = await readJson(event, RefundInput)
  return idempotent(app, event, payment.account_id, input, () => {
    const paid = current(app.store.tables.payments, payment.id, 'payment')
    const check = current(app.store.tables.checks, paid.check_id, 'check')
    const outcome = applyRefund(check, paid, input, app.now(), app.baseUrl)
    const checkChange = outcome.check === check ? [] : [put('checks', outcome.check.id, outcome.check)]
    return {
      status: 200,
      body: renderPayment(outcome.payment),
      changes: [...checkChange, put('payments', outcome.payment.id, outcome.payment), ...app.outbox(outcome.events)],
    }
  })
}

/** A guest rates the visit, whatever the check's status: 201 and the feedback. */
export async function leaveFeedback(app: AppContext, event: H3Event, check: CheckRecord): Promise<Feedback> {
  const input = await readJson(event, FeedbackInput)
  return idempotent(app, event, check.account_id, input, () => {
    const outcome = applyFeedback(current(app.store.tables.checks, check.id, 'check'), input, app.now())
    return {status: 201, body: renderFeedback(outcome.feedback), changes: [put('feedback', outcome.feedback.id, outcome.feedback), ...app.outbox(outcome.events)]}
  })
}
