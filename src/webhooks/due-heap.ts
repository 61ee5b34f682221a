/** What the heap orders: due time, then arrival (`seq`), so equal times keep their order. */
export interface Due {
  due: number
  seq: number
}

const before = (a: Due, b: Due) => a.due < b.due || (a.due === b.due && a.seq < b.seq)

/**
 * A binary min-heap of due items: push and pop cost O(log n), peek O(1).
 * `visits` counts the items each operation touched, so a test can pin that
 * the cost of one operation does not grow with the backlog.
 */
export class DueHeap<T extends Due> {
  #items: T[] = []
  visits = 0

  get size(): number {
    return this.#items.length
  }

  peek(): T | undefined {
    return this.#items[0]
  }

  push(item: T): void {
    this.#items.push(item)
    this.#up(this.#items.length - 1)
  }

  pop(): T | undefined {
    const items = this.#items
    const top = items[0]
    const last = items.pop()
    if (items.length > 0 && last !== undefined) {
      items[0] = last
      this.#down(0)
    }
    return top
  }

  /**
   * Whether `test` holds for an item due at the top's due time, looking at those items only (a child is never due
   * before its parent, so the walk stops under each one due later) and changing nothing.
   */
  someDueFirst(test: (item: T) => boolean): boolean {
    const items = this.#items
    const due = items[0]?.due
    const open = items.length > 0 ? [0] : []
    for (let i = open.pop(); i !== undefined; i = open.pop()) {
      if (i >= items.length || items[i]!.due !== due) continue
      if (test(items[i]!)) return true
      open.push(2 * i + 1, 2 * i + 2)
    }
    return false
  }

  /** Keeps the items `keep` accepts, in O(n): drops the ones that went stale. */
  retain(keep: (item: T) => boolean): void {
    this.#items = this.#items.filter(keep)
    this.visits += this.#items.length
    for (let i = (this.#items.length >> 1) - 1; i >= 0; i--) this.#down(i)
  }

  #up(i: number): void {
    const items = this.#items
    const item = items[i]!
    while (i > 0) {
      this.visits++
      const parent = (i - 1) >> 1
      if (!before(item, items[parent]!)) break
      items[i] = items[parent]!
      i = parent
    }
    items[i] = item
  }

  #down(i: number): void {
    const items = this.#items
    const item = items[i]!
    for (;;) {
      this.visits++
      let child = 2 * i + 1
      if (child >= items.length) break
      if (child + 1 < items.length && before(items[child + 1]!, items[child]!)) child++
      if (!before(items[child]!, item)) break
      items[i] = items[child]!
      i = child
    }
    items[i] = item
  }
}
