import type {CheckRecord} from '../../src/domain/records.js'
import type {CheckPush} from '../../src/domain/schemas.js'

type Line = [external_id: string, quantity: number, price_cents: number, note?: string]

/** A valid push with the given items; totals are derived so they always add up. */
export function checkWith(lines: Line[], extra: Partial<CheckPush> = {}): CheckPush {
  const items = lines.map(([external_id, quantity, price_cents, note]) => ({
    external_id,
    name: `Item ${external_id}`,
    quantity,
    price_cents,
    ...(note === undefined ? {} : {note}),
  }))
  const subtotal = items.reduce((sum, i) => sum + Math.round(i.quantity * i.price_cents), 0)
  const tax = Math.round(subtotal / 10)
  return {
    table: {number: '12'},
    status: 'open',
    items,
    totals: {subtotal_cents: subtotal, tax_cents: tax, total_cents: subtotal + tax},
    ...extra,
  }
}

/** A stored check record numbered `i` (account `acct_1`), as the store keeps it: for store tests that write records directly. */
export const checkRecord = (i: number): CheckRecord => ({
  id: `chk_${i}`,
  object: 'check',
  external_id: `t${i}`,
  location_id: 'loc_1',
  table: {number: String(i)},
  status: 'open',
  version: i,
  items: [],
  totals: {subtotal_cents: i, tax_cents: 0, total_cents: i},
  amount_paid_cents: 0,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  account_id: 'acct_1',
  guest_token: `gt_${i}`,
})
