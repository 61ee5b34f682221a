import type {Check} from './schemas.js'

type Payable = Pick<Check, 'totals' | 'amount_paid_cents'>

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
