import {amountDue, paymentStatus} from './money.js'
import type {CheckRecord} from './records.js'
import type {Check} from './schemas.js'

/** The table page of a check: the link behind its QR code. */
export const guestUrl = (baseUrl: string, token: string) => `${baseUrl}/t/${token}`

/**
 * The public check resource of a record. Keys come in one fixed order, so the
 * same state always serialises to the same bytes (event `data` equals the GET).
 *
 * A part of the record that is already as the resource shows it (the same
 * keys, in the same order: a pushed record's items, totals and table) is
 * the resource's part too, not a copy of it. Records never change in place,
 * so nothing can tell, and an event keeps its resource for as long as
 * retention keeps it: at the event bound the copies were about 30 MB and a
 * share of each full collection's marking (docs/benchmarks.md, "Shared
 * parts").
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
    table: keysAre(record.table, TABLE_KEYS) ? record.table : {number: record.table.number},
    status: record.status,
    version: record.version,
    items: record.items.every(shownAsItem)
      ? record.items
      : record.items.map((item) => ({
          external_id: item.external_id,
          name: item.name,
          quantity: item.quantity,
          price_cents: item.price_cents,
          note: item.note,
          claimed_quantity: item.claimed_quantity,
        })),
    totals: keysAre(record.totals, TOTALS_KEYS)
      ? record.totals
      : {
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

// the keys of each part as the resource shows it, in order
const TABLE_KEYS = ['number']
const TOTALS_KEYS = ['subtotal_cents', 'tax_cents', 'total_cents']
const ITEM_KEYS = ['external_id', 'name', 'quantity', 'price_cents', 'note', 'claimed_quantity']
// an item without a note serialises as one whose note is undefined
const ITEM_KEYS_NO_NOTE = ITEM_KEYS.filter((key) => key !== 'note')

/** Whether `value`'s own enumerable keys are `keys`, in that order, and no others. */
function keysAre(value: object, keys: readonly string[]): boolean {
  let i = 0
  for (const key in value) if (keys[i++] !== key) return false
  return i === keys.length
}

const shownAsItem = (item: object) => keysAre(item, ITEM_KEYS) || keysAre(item, ITEM_KEYS_NO_NOTE)
