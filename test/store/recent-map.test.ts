import {describe, expect, it} from 'vitest'
import {RecentMap} from '../../src/store/recent-map.js'

describe('RecentMap', () => {
  it('keeps its last keys only, dropping the oldest first', () => {
    const map = new RecentMap<string, number>(3)
    for (const [n, key] of ['a', 'b', 'c', 'd', 'e'].entries()) map.set(key, n)
    expect(map.size).toBe(3)
    expect([map.get('a'), map.get('b'), map.get('c'), map.get('d'), map.get('e')]).toEqual([
      undefined,
      undefined,
      2,
      3,
      4,
    ])
  })

  it('a key set again takes the new value and keeps its place', () => {
    const map = new RecentMap<string, number>(2)
    map.set('a', 1).set('b', 2).set('a', 10)
    expect(map.get('a')).toBe(10)
    // 'a' is still the oldest: the next new key drops it, not 'b'
    map.set('c', 3)
    expect([map.get('a'), map.get('b'), map.get('c')]).toEqual([undefined, 2, 3])
  })
})
