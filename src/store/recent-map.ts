/**
 * A map that keeps its last `capacity` keys: setting a new key past that
 * drops the oldest. The keys wait in a ring, oldest next: dropping a Map's
 * first key instead (`map.keys().next()`) leaves holes that each later
 * iterator walks over again, about ten times the cost of the ring
 * (docs/benchmarks.md).
 *
 * @example
 * const places = new RecentMap<string, number>(2)
 * places.set('a', 1).set('b', 2).set('c', 3)
 * places.get('a') // undefined: dropped when 'c' came
 */
export class RecentMap<K, V> {
  readonly #map = new Map<K, V>()
  readonly #ring: (K | undefined)[]
  #next = 0

  constructor(readonly capacity: number) {
    this.#ring = new Array<K | undefined>(capacity).fill(undefined)
  }

  get(key: K): V | undefined {
    return this.#map.get(key)
  }

  get size(): number {
    return this.#map.size
  }

  /** Sets `key`; a key already held keeps its place in the ring. */
  set(key: K, value: V): this {
    const size = this.#map.size
    this.#map.set(key, value)
    // the map grew only for a new key: one lookup, not a `has` before the `set`
    if (this.#map.size === size) return this
    const oldest = this.#ring[this.#next]
    if (oldest !== undefined) this.#map.delete(oldest)
    this.#ring[this.#next] = key
    this.#next = (this.#next + 1) % this.capacity
    return this
  }
}
