import {ApiError} from './errors.js'
import {amountDue, paymentStatus} from './money.js'
import type {CheckRecord} from './records.js'
import type {Check} from './schemas.js'

/** Guest URLs kept at most: about one per check a server holds; past it they are all forgotten at once. */
const GUEST_URLS_KEPT = 100_000
/** The server URL the kept guest URLs are made from, and those URLs by guest token. */
let keptFor: string | undefined
let kept = new Map<string, string>()

/**
 * The table page of a check: the link behind its QR code. Made once per
 * check: every version of a check is rendered with it, and each event keeps
 * its rendering for as long as retention keeps the event, so a new string
 * each time was 100,000 copies (8 MB) at the event bound
 * (docs/benchmarks.md, "Memory with a webhook endpoint"). A process serves
 * one URL; one that renders for several in turn (tests) makes them anew.
 *
 * @example
 * guestUrl('http://127.0.0.1:4747', 'gt_abc') // 'http://127.0.0.1:4747/t/gt_abc', the same string every time
 */
export function guestUrl(baseUrl: string, token: string): string {
  if (baseUrl !== keptFor || kept.size >= GUEST_URLS_KEPT) {
    keptFor = baseUrl
    kept = new Map()
  }
  let url = kept.get(token)
  if (url === undefined) kept.set(token, (url = `${baseUrl}/t/${token}`))
  return url
}

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

/**
 * Guests act only on an open check: a claim, a payment, a refund or feedback
 * on a closed or voided one is `409 check_not_open` (docs/api.md, "The guest side").
 * `action` finishes "guests can only … an open check".
 *
 * @example
 * guestsMayAct(check, 'pay') // throws when check.status is 'closed'
 */
export function guestsMayAct(check: Pick<CheckRecord, 'id' | 'status'>, action: string): void {
  if (check.status !== 'open') {
    throw new ApiError(
      'check_not_open',
      `Check ${check.id} is ${check.status}; guests can only ${action} an open check.`,
    )
  }
}
