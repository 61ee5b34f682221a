/** The fields of an item that the POS owns and may change between pushes. */
export interface PushedItem {
  external_id: string
  name: string
  quantity: number
  price_cents: number
  note: string | null
}

export interface ItemDiff {
  added: string[]
  removed: string[]
  changed: string[]
  unchanged: string[]
}

/** Same name, quantity, price and note: the item did not change. */
export function sameItem(a: PushedItem, b: PushedItem): boolean {
  return a.name === b.name && a.quantity === b.quantity && a.price_cents === b.price_cents && a.note === b.note
}

/**
 * Matches items by `external_id` (SPEC 4.3): position in the list does not
 * matter, so reordering changes no item.
 *
 * @example
 * diffItems([a, b], [b, {...a, note: 'no ice'}]) // {changed: ['a'], unchanged: ['b'], added: [], removed: []}
 */
export function diffItems(before: readonly PushedItem[], after: readonly PushedItem[]): ItemDiff {
  const previous = new Map(before.map((item) => [item.external_id, item]))
  const diff: ItemDiff = {added: [], removed: [], changed: [], unchanged: []}
  for (const item of after) {
    const old = previous.get(item.external_id)
    if (!old) diff.added.push(item.external_id)
    else diff[sameItem(old, item) ? 'unchanged' : 'changed'].push(item.external_id)
    previous.delete(item.external_id)
  }
  diff.removed = [...previous.keys()]
  return diff
}
