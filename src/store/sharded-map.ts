/** How many maps a sharded map splits its keys among: a power of two. */
const SHARDS = 16

/**
 * The shard of `text`, from its last two characters: ids end in random ones. V8 rehashes a Map or a
 * WeakMap whole, in one step: one of 100,000 events held every request for 20–40 ms; a shard rehashes a
 * sixteenth of it (docs/storage.md, "Maps in sixteen").
 */
const shardOf = (text: string): number =>
  // an empty text goes to the first (NaN & n is 0)
  (text.charCodeAt(text.length - 1) ^ (text.charCodeAt(text.length - 2) << 3)) & (SHARDS - 1)

/**
 * A Map of string keys, split among SHARDS maps (`shardOf`).
 *
 * @example
 * const slots = new ShardedMap<{seq: number}>()
 * slots.set('evt_1', {seq: 1})
 * slots.get('evt_1') // {seq: 1}
 */
export class ShardedMap<V> {
  readonly #shards: Map<string, V>[] = Array.from({length: SHARDS}, () => new Map<string, V>())

  get(key: string): V | undefined {
    return this.#shards[shardOf(key)]!.get(key)
  }

  set(key: string, value: V): this {
    this.#shards[shardOf(key)]!.set(key, value)
    return this
  }

  delete(key: string): boolean {
    return this.#shards[shardOf(key)]!.delete(key)
  }

  get size(): number {
    let size = 0
    for (const shard of this.#shards) size += shard.size
    return size
  }
}

/**
 * A WeakMap split among SHARDS weak maps by a text of each key (`textOf`, the shard: `shardOf`).
 *
 * @example
 * const spans = new ShardedWeakMap<{id: string}, number>((record) => record.id)
 * const event = {id: 'evt_1'}
 * spans.set(event, 42).get(event) // 42
 */
export class ShardedWeakMap<K extends object, V> {
  readonly #shards: WeakMap<K, V>[] = Array.from({length: SHARDS}, () => new WeakMap<K, V>())

  constructor(readonly textOf: (key: K) => string) {}

  get(key: K): V | undefined {
    return this.#shards[shardOf(this.textOf(key))]!.get(key)
  }

  set(key: K, value: V): this {
    this.#shards[shardOf(this.textOf(key))]!.set(key, value)
    return this
  }
}
