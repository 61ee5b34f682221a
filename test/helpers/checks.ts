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
