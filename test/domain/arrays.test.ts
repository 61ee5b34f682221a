import {describe, expect, it} from 'vitest'
import {appended, sameInOrder} from '../../src/domain/arrays.js'

describe('arrays', () => {
  it('appended returns the list with the item last and leaves the list as it was', () => {
    const list = Object.freeze(['a', 'b'])
    const longer = appended(list, 'c')
    expect(longer).toEqual(['a', 'b', 'c'])
    expect(list).toEqual(['a', 'b'])
    expect(appended([] as string[], 'a')).toEqual(['a'])
    // an item that is itself a list is one item, not spread
    expect(appended<unknown>([1], [2, 3])).toEqual([1, [2, 3]])
  })

  it('sameInOrder compares elements by identity, in order', () => {
    const a = {}
    const b = {}
    expect(sameInOrder([a, b], [a, b])).toBe(true)
    expect(sameInOrder([a, b], [b, a])).toBe(false)
    expect(sameInOrder([a], [{}])).toBe(false)
    expect(sameInOrder([a], [a, b])).toBe(false)
  })
})
