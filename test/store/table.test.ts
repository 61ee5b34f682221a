import {describe, expect, it} from 'vitest'
import {Table} from '../../src/store/table.js'

interface Row {
  id: string
  account_id: string
  code: string
  value: number
}

const table = () =>
  new Table<Row>(
    (r) => r.id,
    (r) => [`${r.account_id}/${r.code}`],
  )

describe('Table', () => {
  it('finds a record by its alternate key after updates, and no longer after a delete', () => {
    const rows = table()
    rows.put({id: 'r1', account_id: 'a', code: 'x', value: 1})
    rows.put({id: 'r1', account_id: 'a', code: 'x', value: 2})
    expect(rows.getByAlternate('a/x')).toEqual({id: 'r1', account_id: 'a', code: 'x', value: 2})
    expect(rows.idsOf('a')).toEqual(['r1'])
    rows.delete('r1')
    expect(rows.getByAlternate('a/x')).toBeUndefined()
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
})
