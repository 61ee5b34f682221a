/** A first-in first-out queue with O(1) push and shift (an array's `shift` is O(n)). */
export class Fifo<T> {
  #items: (T | undefined)[] = []
  #head = 0

  get length(): number {
    return this.#items.length - this.#head
  }

  push(item: T): void {
    this.#items.push(item)
  }

  /** The first item, left in place. */
  peek(): T | undefined {
    return this.#items[this.#head]
  }

  shift(): T | undefined {
    if (this.#head >= this.#items.length) return undefined
    const item = this.#items[this.#head]
    this.#items[this.#head++] = undefined
    // drop the consumed front once it is most of the array: amortised O(1)
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head)
      this.#head = 0
    }
    return item
  }
}
