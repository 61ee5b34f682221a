import {describe, expect, it} from 'vitest'
import {ShardedMap, ShardedWeakMap} from '../../src/store/sharded-map.js'

describe('ShardedMap', () => {
  it('gets, replaces and deletes by key, any key: empty, one character, long', () => {
    const map = new ShardedMap<number>()
    for (const [n, key] of ['', 'a', 'evt_k3j9x0q2', 'evt_k3j9x0q2'].entries()) map.set(key, n)
    expect([map.get(''), map.get('a'), map.get('evt_k3j9x0q2'), map.get('b')]).toEqual([0, 1, 3, undefined])
    expect(map.size).toBe(3)
    expect([map.delete('a'), map.delete('a')]).toEqual([true, false])
    expect([map.get('a'), map.size]).toEqual([undefined, 2])
  })

  it('keeps a thousand keys apart, whichever shard each falls in', () => {
    const map = new ShardedMap<number>()
    const keys = Array.from({length: 1000}, (_, i) => `evt_${((i * 7919) % 100_003).toString(36)}`)
    keys.forEach((key, i) => map.set(key, i))
    keys.filter((_, i) => i % 2).forEach((key) => map.delete(key))
    expect(map.size).toBe(500)
    expect(keys.map((key) => map.get(key))).toEqual(keys.map((_, i) => (i % 2 ? undefined : i)))
  })
})

describe('ShardedWeakMap', () => {
  it('tells apart two keys of the same text: the key is the object', () => {
    const spans = new ShardedWeakMap<{id: string}, number>((record) => record.id)
    const [older, newer] = [{id: 'dlv_1'}, {id: 'dlv_1'}]
    spans.set(older, 1).set(newer, 2)
    expect([spans.get(older), spans.get(newer), spans.get({id: 'dlv_1'})]).toEqual([1, 2, undefined])
  })
})
