import {sameTotals} from './money.js'
import type {CheckRecord} from './records.js'

/** A field that moved: `[old, new]`. */
export type Moved<T> = [T, T]

type ItemFields = {name: string; quantity: number; price_cents: number; note: string | null}

/** What a push that updated a check moved (docs/api.md, "The request log"). */
export interface CheckChanges {
  location_id?: Moved<string>
  status?: Moved<string>
  table?: Moved<{number: string}>
  totals?: Moved<CheckRecord['totals']>
  items: {
    added: string[]
    removed: string[]
    changed: {external_id: string; fields: Partial<{[F in keyof ItemFields]: Moved<ItemFields[F]>}>}[]
  }
}

const ITEM_FIELDS = ['name', 'quantity', 'price_cents', 'note'] as const

/**
 * What moved between two versions of a check, as the POS sees it: its
 * status, table, totals and location, and the items added, removed or
 * changed (by `external_id`). Guest-side fields (`claimed_quantity`,
 * amounts paid) are left out: a push never moves them.
 *
 * @example
 * checkChanges(before, after) // {status: ['open', 'closed'], items: {added: ['i3'], removed: [], changed: []}}
 */
export function checkChanges(previous: CheckRecord, next: CheckRecord): CheckChanges {
  const changes: CheckChanges = {items: {added: [], removed: [], changed: []}}
  if (previous.location_id !== next.location_id) changes.location_id = [previous.location_id, next.location_id]
  if (previous.status !== next.status) changes.status = [previous.status, next.status]
  if (previous.table.number !== next.table.number) changes.table = [previous.table, next.table]
  if (!sameTotals(previous.totals, next.totals)) changes.totals = [previous.totals, next.totals]
  const before = new Map(previous.items.map((item) => [item.external_id, item]))
  for (const item of next.items) {
    const old = before.get(item.external_id)
    if (!old) {
      changes.items.added.push(item.external_id)
      continue
    }
    before.delete(item.external_id)
    const fields: Record<string, Moved<unknown>> = {}
    for (const field of ITEM_FIELDS) if (old[field] !== item[field]) fields[field] = [old[field], item[field]]
    if (Object.keys(fields).length > 0) changes.items.changed.push({external_id: item.external_id, fields})
  }
  changes.items.removed.push(...before.keys())
  return changes
}
