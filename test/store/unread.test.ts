import {describe, expect, it, vi} from 'vitest'
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

  it("gives a record's fields before a key's first occurrence, parsed, and all of them without one", () => {
    const record = {
      id: 'a/lunch',
      name: 'lun\\"ch',
      counts: {checks: 2},
      records: {checks: [{id: 'x'}]},
      account_id: 'a',
    }
    const unread = Unread.of(Buffer.from(JSON.stringify(record)))!
    expect(unread.before('records')).toEqual({id: 'a/lunch', name: 'lun\\"ch', counts: {checks: 2}})
    expect(unread.before('absent')).toEqual(record)
  })

  it('keeps where its bytes lie in what was read, and tells accounts apart that follow one another', () => {
    const lines = [
      '{"id":"evt_1","account_id":"acct_1"}',
      '{"id":"evt_2","account_id":"acct_1"}',
      '{"id":"evt_3","account_id":"acct_2"}',
    ]
    // one buffer, as a chunk is read: each record a part of it
    const text = lines.join('\n')
    // memory of its own, as a file is read into (a small Buffer.from shares Node's pool with any copy)
    const read = Buffer.alloc(Buffer.byteLength(text))
    read.write(text)
    let at = 0
    const unread = lines.map((line) => {
      const bytes = read.subarray(at, (at += Buffer.byteLength(line)))
      at++
      return Unread.of(bytes)!
    })
    expect(unread.map((u) => u.bytes.toString())).toEqual(lines)
    // the memory read, not a copy of the record's bytes: nothing per record for a start's collections to move
    expect(unread.map((u) => u.memory === read.buffer)).toEqual([true, true, true])
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

  it('knows the fields asked for among its first plain strings, and is not made when one is not there', () => {
    const text =
      '{"id":"dlv_1","object":"delivery","event_id":"evt_1","status":"pending","attempts":[],"note":"x","account_id":"a"}'
    const unread = Unread.of(Buffer.from(text), ['status', 'event_id'])!
    expect(['id', 'account_id', 'event_id', 'status', 'object'].map((f) => unread.field(f))).toEqual([
      'dlv_1',
      'a',
      'evt_1',
      'pending',
      undefined,
    ])
    // after a value that is not a plain string, no field is looked at: a nested one could not be told apart
    expect(Unread.of(Buffer.from(text), ['note'])).toBeUndefined()
    expect(Unread.of(Buffer.from(text.replace('"evt_1"', '"evt_\\"1"')), ['event_id'])).toBeUndefined()
    expect(Unread.of(Buffer.from(text), ['endpoint_id'])).toBeUndefined()
  })

  it('is kept only by a table read on demand, which has no alternate keys or groups its records do not know', () => {
    type Row = {id: string; account_id: string; code: string}
    const unread = Unread.of(Buffer.from('{"id":"r1","code":"x","account_id":"a"}'))!
    expect(() => new Table<Row>((r) => r.id).put(unread)).toThrow('this table reads every record at once')
    expect(() => new Table<Row>((r) => r.id, {readOnDemand: true, groupBy: 'code'})).toThrow(
      'groups only by a field its unread records know',
    )
    const rows = new Table<Row>((r) => r.id, {readOnDemand: true})
    rows.put(unread)
    expect(rows.idsOf('a')).toEqual(['r1'])
    expect(rows.delete('r1')).toBe(1)
    expect([rows.size, rows.count('a')]).toEqual([0, 0])
  })

  it('is grouped and matched by the fields it knows without being read, and read when they do not tell', () => {
    type Row = {id: string; account_id: string; event_id: string; status: string; n: number}
    const rows = new Table<Row>((r) => r.id, {
      readOnDemand: true,
      groupBy: 'event_id',
      unreadFields: ['event_id', 'status'],
    })
    const row = (i: number, event: string, status: string) =>
      `{"id":"r${i}","event_id":"${event}","status":"${status}","n":${i},"account_id":"a"}`
    for (const [i, event, status] of [
      [1, 'e1', 'done'],
      [2, 'e1', 'pending'],
      [3, 'e2', 'done'],
    ] as const)
      rows.put(Unread.of(Buffer.from(row(i, event, status)), rows.unreadFields)!)
    const read = vi.spyOn(Unread.prototype, 'read')
    try {
      expect([...rows.all({status: 'pending'})].map((r) => r.id)).toEqual(['r2'])
      expect(read).toHaveBeenCalledTimes(1)
      expect([...rows.inGroup('e1', {account_id: 'a', status: 'done'})].map((r) => r.id)).toEqual(['r1'])
      expect(read).toHaveBeenCalledTimes(2)
      // a field the unread record does not know: each is read to be matched
      expect([...rows.all({n: 3})].map((r) => r.id)).toEqual(['r3'])
      expect(read).toHaveBeenCalledTimes(3)
    } finally {
      read.mockRestore()
    }
    rows.delete('r1')
    expect(rows.groupIds('e1')).toEqual(['r2'])
  })
})
