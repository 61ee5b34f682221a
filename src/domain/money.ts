import type {Check, Payment} from './schemas.js'

type Payable = Pick<Check, 'totals' | 'amount_paid_cents'>

/**
 * The largest amount the API takes, in cents (10 billion in major units):
 * every amount and every sum it checks (quantity × price, payment + tip)
 * stays at or below it, so sums of up to 500 of them stay exact integers,
 * far from 2^53 (docs/api.md, "Limits").
 */
export const MAX_CENTS = 1_000_000_000_000

/** Whether two checks' totals are the same, amount by amount. */
export function sameTotals(a: Check['totals'], b: Check['totals']): boolean {
  return a.subtotal_cents === b.subtotal_cents && a.tax_cents === b.tax_cents && a.total_cents === b.total_cents
}

/** What is still owed on a check; never negative, even after a total is lowered below what was paid. */
export function amountDue(check: Payable): number {
  return Math.max(check.totals.total_cents - check.amount_paid_cents, 0)
}

/** `paid` once the amount paid covers a non-zero total; a check with nothing to pay is `unpaid`. */
export function paymentStatus(check: Payable): Check['payment_status'] {
  if (check.amount_paid_cents === 0) return 'unpaid'
  return amountDue(check) === 0 ? 'paid' : 'partially_paid'
}

/** Quantities carry at most three decimals; sums of them are rounded back so 0.1 + 0.2 claims 0.3. */
export function roundQuantity(q: number): number {
  return Math.round(q * 1000) / 1000
}

/**
 * Whether a change made the check fully paid: `check.fully_paid` fires on
 * this transition only, whatever caused it (a payment, or a push lowering
 * the total to what was paid), and again after a refund reopened it.
 *
 * @example
 * becameFullyPaid({totals, amount_paid_cents: 500}, {totals, amount_paid_cents: 1000}) // true when totals.total_cents is 1000
 */
export function becameFullyPaid(before: Payable, after: Payable): boolean {
  return paymentStatus(before) !== 'paid' && paymentStatus(after) === 'paid'
}

/**
 * The part of a payment's refunds that came off the check. Refunds are taken
 * from the bill first and from the tip last, so a full refund returns both
 * and a partial one lowers what the check counts as paid.
 */
export function refundedFromBill(payment: {amount_cents: number; amount_refunded_cents: number}): number {
  return Math.min(payment.amount_refunded_cents, payment.amount_cents)
}

/** A payment's status as its refunds leave it: none, part, or all of what was paid with the tip. */
export function paymentState(
  payment: Pick<Payment, 'amount_cents' | 'tip_cents' | 'amount_refunded_cents'>,
): Payment['status'] {
  const refunded = payment.amount_refunded_cents
  if (refunded === 0) return 'succeeded'
  return refunded === payment.amount_cents + payment.tip_cents ? 'refunded' : 'partially_refunded'
}
