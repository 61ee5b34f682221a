import {describe, expect, it} from 'vitest'
import {diffStates, seededRandom, shuffledOrder} from '../../../src/cli/replay/replay.js'

describe('shuffledOrder', () => {
  it('is a permutation of the pushes, the same for the same seed', () => {
    const order = shuffledOrder(12, {seed: 7, duplicates: false})
    expect([...order].sort((a, b) => a - b)).toEqual([...Array(12).keys()])
    expect(shuffledOrder(12, {seed: 7, duplicates: false})).toEqual(order)
  })

  it('gives other orders for other seeds', () => {
    const orders = new Set([1, 2, 3, 4, 5].map((seed) => shuffledOrder(12, {seed, duplicates: false}).join(',')))
    expect(orders.size).toBe(5)
  })

  it('with duplicates sends every push at least once and some twice', () => {
    for (const seed of [1, 2, 3]) {
      const order = shuffledOrder(9, {seed, duplicates: true})
      expect(new Set(order)).toEqual(new Set([...Array(9).keys()]))
      expect(order.length).toBeGreaterThan(9)
    }
  })

  it('draws numbers in [0, 1)', () => {
    const random = seededRandom(123)
    const draws = Array.from({length: 1000}, random)
    expect(draws.every((x) => x >= 0 && x < 1)).toBe(true)
    expect(new Set(draws).size).toBe(1000)
  })
})

describe('diffStates', () => {
  it('is empty for equal states', () => {
    expect(diffStates({t1: {status: 'open', items: [{q: 1}]}}, {t1: {status: 'open', items: [{q: 1}]}})).toEqual([])
  })

  it('names every differing leaf with its jq path and both values', () => {
    const a = {t1: {status: 'open', items: [{id: 'x', q: 1}], totals: {total_cents: 100}}}
    const b = {
      t1: {
        status: 'closed',
        items: [
          {id: 'x', q: 2},
          {id: 'y', q: 1},
        ],
        totals: {total_cents: 100},
      },
    }
    expect(diffStates(a, b)).toEqual([
      {external_id: 't1', path: '.status', in_order: 'open', shuffled: 'closed'},
      {external_id: 't1', path: '.items[0].q', in_order: 1, shuffled: 2},
      {external_id: 't1', path: '.items[1]', shuffled: {id: 'y', q: 1}},
    ])
  })

  it('reports a check that only one run has', () => {
    expect(diffStates({t1: {status: 'open'}, t2: null}, {t1: {status: 'open'}, t2: {status: 'closed'}})).toEqual([
      {external_id: 't2', path: '.', shuffled: {status: 'closed'}},
    ])
  })
})
