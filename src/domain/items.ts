import type {CheckItem} from './schemas.js'

/** The fields of an item that the POS owns and may change between pushes. */
export interface PushedItem {
  external_id: string
  name: string
  quantity: number
  price_cents: number
  note: string | null
}

/** Same name, quantity, price and note: the item did not change. */
export function sameItem(a: PushedItem, b: PushedItem): boolean {
  return a.name === b.name && a.quantity === b.quantity && a.price_cents === b.price_cents && a.note === b.note
}

/**
 * A stored item: the POS's fields and how much of it guests have claimed.
 * Written out field by field on purpose: `{...item, claimed_quantity}` (a
 * spread that adds a property) takes V8's slow path, and made a whole push
 * four times slower.
 */
export function checkItem(item: PushedItem, claimed_quantity: number): CheckItem {
  return {
    external_id: item.external_id,
    name: item.name,
    quantity: item.quantity,
    price_cents: item.price_cents,
    note: item.note,
    claimed_quantity,
  }
}
