import {describe, expect, it} from 'vitest'
import {Table} from '../../src/store/table.js'
import {Unread} from '../../src/store/unread.js'

describe('Unread', () => {
  it('takes the id from the first field of its bytes and the account from the last, and reads the record back', () => {
    const record = {
      id: 'evt_1',
      object: 'event',
      data: {account_id: 'acct_inner', note: 'a "quoted" é'},
      account_id: 'acct_1',
    }
    const unread = Unread.of(Buffer.from(JSON.stringify(record)))!
    expect([unread.id, unread.accountId]).toEqual(['evt_1', 'acct_1'])
    expect(unread.read()).toEqual(record)
    expect(JSON.stringify([unread])).toBe(JSON.stringify([record]))
  })

  it('keeps where its bytes lie in what was read, and tells accounts apart that follow one another', () => {
    const lines = [
      '{"id":"evt_1","account_id":"acct_1"}',
      '{"id":"evt_2","account_id":"acct_1"}',
      '{"id":"evt_3","account_id":"acct_2"}',
    ]
    // one buffer, as a chunk is read: each record a part of it
    const read = Buffer.from(lines.join('\n'))
    let at = 0
    const unread = lines.map((line) => {
      const bytes = read.subarray(at, (at += Buffer.byteLength(line)))
      at++
      return Unread.of(bytes)!
    })
    expect(unread.map((u) => u.bytes.toString())).toEqual(lines)
    expect(unread.map((u) => u.accountId)).toEqual(['acct_1', 'acct_1', 'acct_2'])
    expect(unread.map((u) => (u.read() as {id: string}).id)).toEqual(['evt_1', 'evt_2', 'evt_3'])
  })

  it('leaves to parsing a text whose id or account is not plain, or is not first or last', () => {
    const texts = [
      {id: 'evt_"1"', account_id: 'acct_1'},
      {id: 'evt_1', account_id: 'acct\\1'},
      {object: 'event', id: 'evt_1', account_id: 'acct_1'},
      {id: 'evt_1', account_id: 'acct_1', object: 'event'},
      {id: 'evt_1', data: {account_id: 'acct_inner'}},
    ]
      .map((record) => JSON.stringify(record))
      .concat(['{}', '"}', '{"id":"}', '{"id":"evt_1","account_id":"acct_1"},'])
    expect(texts.map((text) => Unread.of(Buffer.from(text)))).toEqual(texts.map(() => undefined))
  })

  it('is kept only by a table read on demand, which has no alternate keys or groups', () => {
    type Row = {id: string; account_id: string; code: string}
    const unread = Unread.of(Buffer.from('{"id":"r1","code":"x","account_id":"a"}'))!
    expect(() => new Table<Row>((r) => r.id).put(unread)).toThrow('this table reads every record at once')
    expect(() => new Table<Row>((r) => r.id, {readOnDemand: true, groupBy: 'code'})).toThrow(
      'no alternate keys or groups',
    )
    const rows = new Table<Row>((r) => r.id, {readOnDemand: true})
    rows.put(unread)
    expect(rows.idsOf('a')).toEqual(['r1'])
    expect(rows.delete('r1')).toBe(1)
    expect([rows.size, rows.count('a')]).toEqual([0, 0])
  })
})
