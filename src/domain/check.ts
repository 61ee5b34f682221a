import {amountDue, paymentStatus} from './money.js'
import type {CheckRecord} from './records.js'
import type {Check} from './schemas.js'

/** The table page of a check: the link behind its QR code. */
export const guestUrl = (baseUrl: string, token: string) => `${baseUrl}/t/${token}`

/**
 * The public check resource of a record. Keys come in one fixed order, so the
 * same state always serialises to the same bytes (event `data` equals the GET).
 *
 * @example
 * renderCheck(record, 'http://127.0.0.1:4747').guest_url // 'http://127.0.0.1:4747/t/gt_…'
 */
export function renderCheck(record: CheckRecord, baseUrl: string): Check {
  return {
    id: record.id,
    object: 'check',
    external_id: record.external_id,
    location_id: record.location_id,
    table: {number: record.table.number},
    status: record.status,
    version: record.version,
    items: record.items.map((item) => ({
      external_id: item.external_id,
      name: item.name,
      quantity: item.quantity,
      price_cents: item.price_cents,
      note: item.note,
      claimed_quantity: item.claimed_quantity,
    })),
    totals: {
      subtotal_cents: record.totals.subtotal_cents,
      tax_cents: record.totals.tax_cents,
      total_cents: record.totals.total_cents,
    },
    amount_paid_cents: record.amount_paid_cents,
    amount_due_cents: amountDue(record),
    payment_status: paymentStatus(record),
    guest_url: guestUrl(baseUrl, record.guest_token),
    created_at: record.created_at,
    updated_at: record.updated_at,
  }
}
