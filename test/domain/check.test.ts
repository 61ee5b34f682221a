import {describe, expect, it} from 'vitest'
import {guestUrl, renderCheck} from '../../src/domain/check.js'
import {applyPush} from '../../src/domain/push.js'
import type {CheckRecord} from '../../src/domain/records.js'
import {checkWith} from '../helpers/checks.js'

const pushed = () =>
  applyPush({
    accountId: 'acct_a',
    externalId: 't1',
    body: checkWith([
      ['a', 1, 500, 'no ice'],
      ['b', 2, 250],
    ]),
    locations: [
      {
        id: 'loc_1',
        object: 'location',
        name: 'Main',
        timezone: 'UTC',
        currency: 'EUR',
        created_at: '2026-01-01T00:00:00.000Z',
        account_id: 'acct_a',
      },
    ],
    now: '2026-01-01T12:00:00.000Z',
    baseUrl: 'http://x',
  }).check

describe('renderCheck', () => {
  it("shares a pushed record's items, totals and table with the resource instead of copying them", () => {
    const record = pushed()
    const resource = renderCheck(record, 'http://x')
    expect(resource.items).toBe(record.items)
    expect(resource.totals).toBe(record.totals)
    expect(resource.table).toBe(record.table)
  })

  it('copies a part whose keys differ from the resource, in order or in number, and writes the same bytes', () => {
    const record = pushed()
    const [first, second] = record.items
    const {claimed_quantity, ...firstRest} = first!
    const {total_cents, ...totalsRest} = record.totals
    const reordered: CheckRecord = {
      ...record,
      // the same keys in another order (as a database's JSON column may give them), and one the resource has not
      items: [{claimed_quantity, ...firstRest}, {...second!, kitchen_ticket: 'k-7'} as (typeof record.items)[number]],
      totals: {total_cents, ...totalsRest},
      table: {...record.table, section: 'terrace'} as CheckRecord['table'],
    }
    const resource = renderCheck(reordered, 'http://x')
    expect(resource.items).not.toBe(reordered.items)
    expect(resource.totals).not.toBe(reordered.totals)
    expect(resource.table).not.toBe(reordered.table)
    // the same bytes as the record whose parts are shared
    expect(JSON.stringify(resource)).toBe(JSON.stringify(renderCheck(record, 'http://x')))
  })
})

describe('guestUrl', () => {
  it("is the table page of the token on the server's URL, whichever server rendered before", () => {
    expect(guestUrl('http://127.0.0.1:4747', 'gt_a')).toBe('http://127.0.0.1:4747/t/gt_a')
    expect(guestUrl('http://127.0.0.1:4747', 'gt_b')).toBe('http://127.0.0.1:4747/t/gt_b')
    // a URL kept for one server is never answered for another, in either order
    expect(guestUrl('http://localhost:5000', 'gt_a')).toBe('http://localhost:5000/t/gt_a')
    expect(guestUrl('http://127.0.0.1:4747', 'gt_a')).toBe('http://127.0.0.1:4747/t/gt_a')
    expect(renderCheck(pushed(), 'http://y').guest_url).toMatch(/^http:\/\/y\/t\/gt_/)
  })
})
