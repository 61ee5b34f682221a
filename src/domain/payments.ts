import {appended} from './arrays.js'
import {guestsMayAct, renderCheck} from './check.js'
import {ApiError, type ErrorDetail, invalidField} from './errors.js'
import {checkChangeEvents, newEvent} from './events.js'
import {newId} from './ids.js'
import {amountDue, paymentState, refundedFromBill} from './money.js'
import type {CheckRecord, ClaimRecord, EventRecord, PaymentRecord} from './records.js'
import type {Payment, PaymentInput, RefundInput} from './schemas.js'

export interface PaymentOutcome {
  check: CheckRecord
  payment: PaymentRecord
  /** `payment.succeeded` or `payment.refunded`, then what the check's change causes. */
  events: EventRecord[]
}

/** The public payment resource of a record, keys in one fixed order (event `data` equals the GET). */
export function renderPayment(record: PaymentRecord): Payment {
  return {
    id: record.id,
    object: 'payment',
    check_id: record.check_id,
    claim_id: record.claim_id,
    amount_cents: record.amount_cents,
    tip_cents: record.tip_cents,
    amount_refunded_cents: record.amount_refunded_cents,
    status: record.status,
    refunds: record.refunds.map((r) => ({amount_cents: r.amount_cents, created_at: r.created_at})),
    created_at: record.created_at,
    updated_at: record.updated_at,
  }
}

/**
 * A guest pays part or all of what is due on an open check. Tips are kept
 * apart: they never count toward the total or `amount_paid_cents`. The rules,
 * in order: the check is open (409), `claim_id` is a claim of this check
 * (422), the amount is at most what is due (422), then the simulated card
 * answers (402 with `simulate: "decline"`).
 *
 * @example
 * applyPayment(check, {amount_cents: 1200, tip_cents: 200}, now, baseUrl).check.amount_paid_cents // previous + 1200
 */
export function applyPayment(
  check: CheckRecord,
  input: PaymentInput,
  now: string,
  baseUrl: string,
  claim?: ClaimRecord,
): PaymentOutcome {
  guestsMayAct(check, 'pay')
  if (input.claim_id !== undefined && claim?.check_id !== check.id) {
    throw invalidField(
      'claim_id',
      `no claim ${input.claim_id} on check ${check.id}; GET /v1/checks/${check.id}/claims lists them`,
    )
  }
  const due = amountDue(check)
  if (input.amount_cents > due) {
    throw new ApiError(
      'amount_exceeds_balance',
      `amount_cents ${input.amount_cents} is more than the ${due} due on check ${check.id}; pay at most ${due} (a tip goes in tip_cents).`,
      [{path: 'amount_cents', message: `must be at most ${due}, the amount due`}],
    )
  }
  if (input.simulate === 'decline') {
    throw new ApiError(
      'payment_declined',
      'The card was declined (simulate: "decline"); nothing was charged. Send the payment without "simulate" to succeed.',
    )
  }
  const payment: PaymentRecord = {
    id: newId('pay'),
    object: 'payment',
    check_id: check.id,
    claim_id: input.claim_id ?? null,
    amount_cents: input.amount_cents,
    tip_cents: input.tip_cents ?? 0,
    amount_refunded_cents: 0,
    status: 'succeeded',
    refunds: [],
    created_at: now,
    updated_at: now,
    account_id: check.account_id,
  }
  const next = {...check, amount_paid_cents: check.amount_paid_cents + payment.amount_cents, updated_at: now}
  return {
    check: next,
    payment,
    events: [
      newEvent(check.account_id, 'payment.succeeded', renderPayment(payment), now),
      ...checkChangeEvents(check, next, renderCheck(next, baseUrl), now),
    ],
  }
}

/**
 * Refunds part or all of a payment of an open check (409 otherwise: reopen
 * the bill with a push first). Without `amount_cents` everything left is refunded.
 * The bill part is refunded before the tip (see `refundedFromBill`); only
 * the bill part lowers the check's `amount_paid_cents`.
 */
export function applyRefund(
  check: CheckRecord,
  payment: PaymentRecord,
  input: RefundInput,
  now: string,
  baseUrl: string,
): PaymentOutcome {
  guestsMayAct(check, 'be refunded on')
  const refundable = payment.amount_cents + payment.tip_cents - payment.amount_refunded_cents
  const amount = input.amount_cents ?? refundable
  if (refundable === 0 || amount > refundable) {
    throw new ApiError(
      'amount_exceeds_balance',
      refundable === 0
        ? `Payment ${payment.id} is already fully refunded; nothing is left to refund.`
        : `amount_cents ${amount} is more than the ${refundable} left to refund on payment ${payment.id}; refund at most ${refundable}.`,
      [{path: 'amount_cents', message: `must be at most ${refundable}, the amount left to refund`}],
    )
  }
  const refunded = payment.amount_refunded_cents + amount
  const nextPayment: PaymentRecord = {
    ...payment,
    amount_refunded_cents: refunded,
    status: paymentState({...payment, amount_refunded_cents: refunded}),
    refunds: appended(payment.refunds, {amount_cents: amount, created_at: now}),
    updated_at: now,
  }
  const back = refundedFromBill(nextPayment) - refundedFromBill(payment)
  const refundedEvent = newEvent(payment.account_id, 'payment.refunded', renderPayment(nextPayment), now)
  // a refund of the tip alone leaves the check as it was: no check event
  if (back === 0) return {check, payment: nextPayment, events: [refundedEvent]}
  const next = {...check, amount_paid_cents: check.amount_paid_cents - back, updated_at: now}
  return {
    check: next,
    payment: nextPayment,
    events: [refundedEvent, ...checkChangeEvents(check, next, renderCheck(next, baseUrl), now)],
  }
}

/**
 * The push side of "what guests paid stays paid" (the conflict_with_paid_items
 * family): a push may not lower the total below what was paid, nor void a
 * check that holds payments. Refund first. Empty when the push is allowed.
 */
export function paidConflicts(
  check: Pick<CheckRecord, 'amount_paid_cents' | 'status'>,
  push: {status: string; totals: {total_cents: number}},
): ErrorDetail[] {
  const paid = check.amount_paid_cents
  if (paid === 0) return []
  const conflicts: ErrorDetail[] = []
  if (push.totals.total_cents < paid) {
    conflicts.push({path: 'totals.total_cents', message: `guests have paid ${paid}; the total cannot go below it`})
  }
  if (push.status === 'voided') {
    // only an open check's payments are refunded (guestsMayAct): a closed one is pushed open first
    const first = check.status === 'open' ? '' : 'push the check open again and '
    conflicts.push({path: 'status', message: `guests have paid ${paid}; ${first}refund it before voiding the check`})
  }
  return conflicts
}
