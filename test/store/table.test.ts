import {describe, expect, it} from 'vitest'
import {Table} from '../../src/store/table.js'

interface Row {
  id: string
  account_id: string
  code: string
  value: number
}

const table = () => new Table<Row>((r) => r.id, {alternateKeysOf: (r) => [[r.account_id, r.code]], groupBy: 'code'})

describe('Table', () => {
  it('finds a record by its alternate key after updates, and no longer after a delete', () => {
    const rows = table()
    rows.put({id: 'r1', account_id: 'a', code: 'x', value: 1})
    rows.put({id: 'r1', account_id: 'a', code: 'x', value: 2})
    expect(rows.getByAlternate('a', 'x')).toEqual({id: 'r1', account_id: 'a', code: 'x', value: 2})
    expect(rows.idsOf('a')).toEqual(['r1'])
    rows.delete('r1')
    expect(rows.getByAlternate('a', 'x')).toBeUndefined()
    expect(rows.idsOf('a')).toEqual([])
  })

  it("keeps each account's ids in the order the records were first stored", () => {
    const rows = table()
    for (const [id, account] of [
      ['r1', 'a'],
      ['r2', 'b'],
      ['r3', 'a'],
      ['r1', 'a'],
    ] as const)
      rows.put({id, account_id: account, code: id, value: 0})
    expect(rows.idsOf('a')).toEqual(['r1', 'r3'])
    expect(rows.idsOf('b')).toEqual(['r2'])
    expect(rows.size).toBe(3)
  })

  const ids = (records: Iterable<Row> | undefined) => (records ? [...records].map((r) => r.id) : undefined)

  it('walks newest or oldest first from a cursor, and keeps the place of a deleted cursor', () => {
    const rows = table()
    for (let i = 1; i <= 6; i++) rows.put({id: `r${i}`, account_id: 'a', code: `c${i}`, value: i})
    rows.delete('r4')
    rows.delete('r1')
    expect(ids(rows.walk('a', {}))).toEqual(['r6', 'r5', 'r3', 'r2'])
    expect(ids(rows.walk('a', {after: 'r5'}))).toEqual(['r3', 'r2'])
    expect(ids(rows.walk('a', {after: 'r4'}))).toEqual(['r3', 'r2'])
    expect(ids(rows.walk('a', {after: 'r4', oldestFirst: true}))).toEqual(['r5', 'r6'])
    expect(ids(rows.walk('a', {after: 'r1', oldestFirst: true}))).toEqual(['r2', 'r3', 'r5', 'r6'])
    expect(ids(rows.walk('a', {after: 'nope'}))).toBeUndefined()
    expect(rows.count('a')).toBe(4)
  })

  it("pages on from an account's own deleted record, though another account holds its id now, and from no other's", () => {
    const rows = table()
    for (const id of ['r1', 'r2', 'r3']) rows.put({id, account_id: 'a', code: id, value: 0})
    rows.delete('r2')
    // an import keeps ids: another account may hold the id one deleted
    rows.put({id: 'r2', account_id: 'b', code: 'r2', value: 0})
    expect(ids(rows.walk('a', {after: 'r2'}))).toEqual(['r1'])
    rows.delete('r3')
    expect(ids(rows.walk('b', {after: 'r3'}))).toBeUndefined()
    expect(ids(rows.walk('b', {after: 'r1'}))).toBeUndefined()
  })

  it('deletes the oldest records of a large account without walking it, and compacts behind them', () => {
    const rows = table()
    for (let i = 0; i < 5000; i++) rows.put({id: `r${i}`, account_id: 'a', code: 'x', value: i})
    for (let i = 0; i < 4000; i++) rows.delete(`r${i}`)
    expect([
      rows.count('a'),
      rows.idsOf('a')[0],
      ids(rows.walk('a', {after: 'r3999', oldestFirst: true}))!.length,
    ]).toEqual([1000, 'r4000', 1000])
  })

  it("finds a group's ids, and no longer a deleted record's", () => {
    const rows = table()
    rows.put({id: 'r1', account_id: 'a', code: 'g', value: 1})
    rows.put({id: 'r2', account_id: 'a', code: 'g', value: 2})
    rows.delete('r1')
    expect(rows.groupIds('g')).toEqual(['r2'])
    rows.delete('r2')
    expect(rows.groupIds('g')).toEqual([])
  })

  it('gives each new record the next place, after one set with placeAfter, and keeps it across updates', () => {
    const rows = table()
    expect(rows.put({id: 'r1', account_id: 'a', code: 'x', value: 1})).toBe(1)
    rows.placeAfter(99)
    expect(rows.put({id: 'r2', account_id: 'a', code: 'y', value: 1})).toBe(100)
    // a lower mark never gives a place twice
    rows.placeAfter(10)
    expect(rows.put({id: 'r3', account_id: 'b', code: 'z', value: 1})).toBe(101)
    expect(rows.put({id: 'r2', account_id: 'a', code: 'y', value: 2})).toBe(100)
    const placed: [string, number][] = []
    rows.forEachPlaced((row, seq) => placed.push([row.id, seq]))
    expect(placed).toEqual([
      ['r1', 1],
      ['r2', 100],
      ['r3', 101],
    ])
    expect([rows.delete('r2'), rows.delete('r2')]).toEqual([100, undefined])
  })
})
