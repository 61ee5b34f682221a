import {readdir, readFile} from 'node:fs/promises'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import type {CheckRecord, EventRecord} from '../../src/domain/records.js'
import {jsonText, KEPT, recordJson} from '../../src/store/json-text.js'
import {put, Store} from '../../src/store/store.js'
import {makeTempDir} from '../helpers/simulator.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

const resource = {id: 'chk_1', object: 'check', items: [{name: 'Crème "brûlée"\n', note: null}], total: 12.5}
const event = {
  id: 'evt_1',
  object: 'event',
  type: 'check.updated',
  created_at: '2026-01-01T00:00:00.000Z',
  data: resource,
  account_id: 'acct_1',
} as unknown as EventRecord

describe('json-text', () => {
  it('gives the bytes JSON.stringify gives, for a record with and without data', () => {
    expect(jsonText(resource)).toBe(JSON.stringify(resource))
    expect(recordJson(event)).toBe(JSON.stringify(event))
    const odd = {id: 'x', skipped: undefined, fn: () => 1, data: {a: [1, undefined]}, '1': 'first', 'q"uote': true}
    expect(recordJson(odd)).toBe(JSON.stringify(odd))
    expect(recordJson({id: 'y', data: null})).toBe(JSON.stringify({id: 'y', data: null}))
  })

  it('serializes a value once while it is recent', () => {
    const value = {n: 1}
    const first = jsonText(value)
    value.n = 2 // no value changes once serialized; this shows the text is the one made first
    expect(jsonText(value)).toBe(first)
  })

  it('keeps the texts of the last KEPT values only, dropping the oldest first', () => {
    const values = Array.from({length: KEPT + 1}, (_, n) => ({n}))
    for (const value of values) jsonText(value)
    values[0]!.n = -1
    values[1]!.n = -2
    // the next oldest is still kept; the oldest was dropped, and its text is made again
    expect(jsonText(values[1]!)).toBe('{"n":1}')
    expect(jsonText(values[0]!)).toBe('{"n":-1}')
  })

  it('writes a journal line that reads back as the records put, byte for byte as before', async () => {
    const dir = await makeTempDir()
    const store = await Store.open({dir})
    cleanup.push(() => store.close())
    // a check that no event of the line carries as its data: written as it is (journal-copies.ts)
    const check = {id: 'chk_2', account_id: 'acct_1', object: 'check'} as unknown as CheckRecord
    await store.commit([put('checks', check.id, check), put('events', event.id, event), ['events', 'evt_0', null]])
    const journal = (await readdir(dir)).find((name) => name.startsWith('journal.'))!
    const line = (await readFile(join(dir, journal), 'utf8')).trim()
    const puts = [JSON.stringify(check), JSON.stringify(event)]
    const frames = `put checks 7:"chk_2" ${puts[0]!.length}:${puts[0]} put events 7:"evt_1" ${Buffer.byteLength(puts[1]!)}:${puts[1]}`
    expect(line.endsWith(` 1 ${frames} del events 7:"evt_0" 0:`)).toBe(true)
  })
})
