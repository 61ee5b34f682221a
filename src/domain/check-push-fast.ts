import {CHECK_STATUSES, EXTERNAL_CHECK_ID} from './constants.js'
import {MAX_CENTS} from './money.js'
import type {CheckPush} from './schemas.js'

type ItemInput = CheckPush['items'][number]

type Fields = Record<string, unknown>

const PUSH_KEYS = new Set(['location_id', 'version', 'table', 'status', 'items', 'totals'])
const ITEM_KEYS = new Set(['external_id', 'name', 'quantity', 'price_cents', 'note'])
const TABLE_KEYS = new Set(['number'])
const TOTALS_KEYS = new Set(['subtotal_cents', 'tax_cents', 'total_cents'])
const STATUSES: ReadonlySet<unknown> = new Set(CHECK_STATUSES)

const isFields = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** Whether every own key of `value` is in `allowed`, and it has `required` of them. */
function onlyKeys(value: Fields, allowed: ReadonlySet<string>, required: number): boolean {
  let present = 0
  for (const key in value) {
    if (!allowed.has(key)) return false
    present++
  }
  return present >= required
}

const text = (value: unknown, min: number, max: number): value is string =>
  typeof value === 'string' && value.length >= min && value.length <= max

const cents = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= MAX_CENTS

const quantity = (value: unknown): value is number =>
  typeof value === 'number' &&
  value > 0 &&
  value <= 1_000_000 &&
  (Number.isInteger(value) || Number(value.toFixed(3)) === value)

function item(value: unknown): ItemInput | undefined {
  if (!isFields(value)) return undefined
  const {external_id, name, quantity: q, price_cents, note} = value
  const required = note === undefined ? 4 : 5
  if (!onlyKeys(value, ITEM_KEYS, required) || !text(external_id, 1, 64) || !text(name, 1, 200)) return undefined
  if (!quantity(q) || !cents(price_cents) || q * price_cents > MAX_CENTS) return undefined
  if (note !== undefined && !text(note, 0, 500)) return undefined
  const out: ItemInput = {external_id, name, quantity: q, price_cents}
  if (note !== undefined) out.note = note
  return out
}

function items(value: unknown): ItemInput[] | undefined {
  if (!Array.isArray(value) || value.length > 500) return undefined
  const out: ItemInput[] = []
  for (const one of value) {
    const checked = item(one)
    if (!checked) return undefined
    out.push(checked)
  }
  // duplicates: a pair-wise look for the usual few items, a set for a long check
  if (out.length > 32) return new Set(out.map((i) => i.external_id)).size === out.length ? out : undefined
  for (let i = 1; i < out.length; i++) {
    for (let j = 0; j < i; j++) if (out[i]!.external_id === out[j]!.external_id) return undefined
  }
  return out
}

/**
 * The `CheckPush` schema's output for a body it accepts, made without zod;
 * `undefined` when the body is not plainly valid, and zod then decides and
 * words the errors. It never accepts what the schema refuses, and builds
 * what the schema builds (same fields, same order): zod's object checks cost
 * a push about 7 µs and 7 KB of garbage (docs/benchmarks.md, "Where the time
 * goes now"). test/domain/check-push-fast.test.ts holds it to the schema.
 *
 * @example
 * const body = acceptCheckPush(JSON.parse(text)) ?? CheckPush.parse(JSON.parse(text))
 */
export function acceptCheckPush(value: unknown): CheckPush | undefined {
  if (!isFields(value)) return undefined
  const {location_id, version, table, status, totals} = value
  const required = 4 + (location_id === undefined ? 0 : 1) + (version === undefined ? 0 : 1)
  if (!onlyKeys(value, PUSH_KEYS, required)) return undefined
  if (location_id !== undefined && !text(location_id, 1, 64)) return undefined
  if (version !== undefined && !(typeof version === 'number' && Number.isSafeInteger(version) && version >= 1))
    return undefined
  if (!isFields(table) || !onlyKeys(table, TABLE_KEYS, 1) || !text(table.number, 1, 32)) return undefined
  if (!STATUSES.has(status)) return undefined
  const pushed = items(value.items)
  if (!pushed || !isFields(totals) || !onlyKeys(totals, TOTALS_KEYS, 3)) return undefined
  const {subtotal_cents, tax_cents, total_cents} = totals
  if (!cents(subtotal_cents) || !cents(tax_cents) || !cents(total_cents)) return undefined
  if (total_cents !== subtotal_cents + tax_cents) return undefined
  const out = {} as CheckPush
  if (location_id !== undefined) out.location_id = location_id
  if (version !== undefined) out.version = version
  out.table = {number: table.number}
  out.status = status as CheckPush['status']
  out.items = pushed
  out.totals = {subtotal_cents, tax_cents, total_cents}
  return out
}

/**
 * A check's external id as the `ExternalCheckId` schema accepts it, or
 * `undefined` to let the schema decide and word the error.
 *
 * @example
 * acceptExternalId('t12') // 't12'
 */
export const acceptExternalId = (value: unknown): string | undefined =>
  typeof value === 'string' && EXTERNAL_CHECK_ID.test(value) ? value : undefined
