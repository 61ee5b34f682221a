import {describe, expect, it} from 'vitest'
import {applyClaim} from '../../src/domain/claims.js'
import {applyPush, type PushInput, pushReadsLocations} from '../../src/domain/push.js'
import type {CheckRecord, LocationRecord} from '../../src/domain/records.js'
import type {CheckPush} from '../../src/domain/schemas.js'
import {checkWith} from '../helpers/checks.js'
import {rejects} from '../helpers/rejects.js'

const location = (id: string): LocationRecord => ({
  id,
  object: 'location',
  name: id,
  timezone: 'UTC',
  currency: 'EUR',
  created_at: '2026-01-01T00:00:00.000Z',
  account_id: 'acct_a',
})

const push = (body: CheckPush, existing?: CheckRecord, locations = [location('loc_1')]) =>
  applyPush({
    accountId: 'acct_a',
    externalId: 't1',
    body,
    locations,
    existing,
    now: '2026-01-01T12:00:00.000Z',
    baseUrl: 'http://x',
  } satisfies PushInput)

/** A push given no locations, as the service makes one that `pushReadsLocations` says needs none. */
const withoutLocations = (body: CheckPush, existing: CheckRecord) =>
  applyPush({
    accountId: 'acct_a',
    externalId: 't1',
    body,
    existing,
    now: '2026-01-01T12:00:00.000Z',
    baseUrl: 'http://x',
  })

describe('applyPush', () => {
  it('creates a check and emits check.created whose data is the rendered check', () => {
    const outcome = push(checkWith([['a', 1, 500]], {version: 1}))
    expect(outcome.result).toBe('created')
    expect(outcome.events.map((e) => e.type)).toEqual(['check.created'])
    expect(outcome.events[0]!.data).toMatchObject({
      id: outcome.check.id,
      object: 'check',
      version: 1,
      amount_due_cents: 550,
    })
  })

  it('a check created closed emits check.created and check.closed', () => {
    const outcome = push(checkWith([['a', 1, 500]], {status: 'closed'}))
    expect(outcome.events.map((e) => e.type)).toEqual(['check.created', 'check.closed'])
  })

  it('an identical push is unchanged, emits nothing and returns the same record', () => {
    const first = push(checkWith([['a', 1, 500]], {version: 1})).check
    const again = push(checkWith([['a', 1, 500]], {version: 1}), first)
    expect(again).toMatchObject({result: 'unchanged', events: []})
    expect(again.check).toBe(first)
  })

  it('renders the check only for a push that changed it: a replay answers with the stored version', () => {
    const created = push(checkWith([['a', 1, 500]], {version: 1}))
    expect(created.resource).toBe(created.events[0]!.data)
    const replay = push(checkWith([['a', 1, 500]], {version: 1}), created.check)
    expect(replay.resource).toBeUndefined()
    const stale = push(checkWith([['a', 9, 500]], {version: 1}), push(checkWith([['a', 2, 500]], {version: 2})).check)
    expect(stale).toMatchObject({result: 'stale', events: []})
    expect(stale.resource).toBeUndefined()
  })

  it('a lower version is stale and changes nothing, even with other content', () => {
    const v2 = push(checkWith([['a', 2, 500]], {version: 2})).check
    const stale = push(checkWith([['a', 1, 500]], {version: 1}), v2)
    expect(stale.result).toBe('stale')
    expect(stale.check).toBe(v2)
    expect(stale.events).toEqual([])
  })

  it('the same version with other content is a version_conflict', () => {
    const v1 = push(checkWith([['a', 1, 500]], {version: 1})).check
    rejects(() => push(checkWith([['a', 3, 500]], {version: 1}), v1), 'version_conflict')
  })

  it('a higher version with the same content only advances the version', () => {
    const v1 = push(checkWith([['a', 1, 500]], {version: 1})).check
    const v2 = push(checkWith([['a', 1, 500]], {version: 2}), v1)
    expect(v2.result).toBe('unchanged')
    expect(v2.check.version).toBe(2)
    expect(v2.events).toEqual([])
  })

  it('closing emits check.updated and check.closed; closing again emits nothing', () => {
    const open = push(checkWith([['a', 1, 500]])).check
    const closed = push(checkWith([['a', 1, 500]], {status: 'closed'}), open)
    expect(closed.events.map((e) => e.type)).toEqual(['check.updated', 'check.closed'])
    expect(push(checkWith([['a', 1, 500]], {status: 'closed'}), closed.check).events).toEqual([])
  })

  it('key order does not make a push different', () => {
    const body = checkWith([['a', 1, 500, 'no ice']], {version: 1})
    const first = push(body).check
    const reordered = JSON.parse(
      JSON.stringify(
        body,
        Object.keys(body)
          .reverse()
          .concat([
            'number',
            'note',
            'price_cents',
            'quantity',
            'name',
            'external_id',
            'total_cents',
            'tax_cents',
            'subtotal_cents',
          ]),
      ),
    )
    expect(push(reordered, first).result).toBe('unchanged')
  })

  it('needs location_id when the account has several locations, and names them', () => {
    const error = rejects(
      () => push(checkWith([['a', 1, 500]]), undefined, [location('loc_1'), location('loc_2')]),
      'validation_failed',
    )
    expect(error.details).toEqual([{path: 'location_id', message: expect.stringContaining('loc_1')}])
    expect(
      push(checkWith([['a', 1, 500]], {location_id: 'loc_2'}), undefined, [location('loc_1'), location('loc_2')]).check
        .location_id,
    ).toBe('loc_2')
  })

  it('says what to do when the account has no locations (a snapshot restored without them)', () => {
    const error = rejects(() => push(checkWith([['a', 1, 500]]), undefined, []), 'validation_failed')
    expect(error.details).toEqual([
      {path: 'location_id', message: expect.stringMatching(/^this account has no locations: restore a snapshot/)},
    ])
  })

  it('refuses a location of another account', () => {
    rejects(() => push(checkWith([['a', 1, 500]], {location_id: 'loc_x'})), 'validation_failed')
  })

  it('reads the locations only for a new check or a move: an update that keeps its location resolves without them', () => {
    const first = push(checkWith([['a', 1, 500]]))
    const moved = checkWith([['a', 2, 500]], {location_id: 'loc_2'})
    expect(pushReadsLocations(checkWith([['a', 1, 500]]), undefined)).toBe(true)
    expect(pushReadsLocations(moved, first.check)).toBe(true)
    for (const body of [checkWith([['a', 2, 500]]), checkWith([['a', 2, 500]], {location_id: 'loc_1'})]) {
      expect(pushReadsLocations(body, first.check)).toBe(false)
      const next = withoutLocations(body, first.check)
      expect([next.result, next.check.location_id]).toEqual(['updated', 'loc_1'])
    }
    // a move is checked against the locations as before
    rejects(() => push(moved, first.check), 'validation_failed')
    expect(push(moved, first.check, [location('loc_1'), location('loc_2')]).check.location_id).toBe('loc_2')
    expect(() => withoutLocations(moved, first.check)).toThrow("needs the account's locations")
  })
})

describe('item diff by external_id', () => {
  it('reordering items is an update that changes no item', () => {
    const first = push(
      checkWith([
        ['a', 1, 500],
        ['b', 2, 300],
        ['c', 1, 900],
      ]),
    ).check
    const reordered = push(
      checkWith([
        ['c', 1, 900],
        ['a', 1, 500],
        ['b', 2, 300],
      ]),
      first,
    )
    const byId = (items: CheckRecord['items']) => Object.fromEntries(items.map((item) => [item.external_id, item]))
    expect(reordered.result).toBe('updated')
    expect(reordered.check.items.map((i) => i.external_id)).toEqual(['c', 'a', 'b'])
    expect(byId(reordered.check.items)).toEqual(byId(first.items))
  })

  it('claims follow their item through reorders and edits of other items', () => {
    const first = push(
      checkWith([
        ['a', 2, 500],
        ['b', 1, 300],
      ]),
    ).check
    const claimed = applyClaim(first, {items: [{external_id: 'a', quantity: 1}]}, 'now', 'http://x').check
    const next = push(
      checkWith([
        ['b', 1, 300, 'extra'],
        ['a', 2, 500],
      ]),
      claimed,
    ).check
    expect(next.items.map((i) => [i.external_id, i.claimed_quantity])).toEqual([
      ['b', 0],
      ['a', 1],
    ])
  })
})

describe('what an update leaves as it was', () => {
  it("stays the stored record's own, in the new version and its event's data; what changed is new", () => {
    const first = push(
      checkWith([
        ['a', 1, 500],
        ['b', 2, 300, 'no ice'],
      ]),
    ).check
    const claimed = applyClaim(first, {items: [{external_id: 'b', quantity: 1}]}, 'now', 'http://x').check
    const outcome = push(
      checkWith([
        ['a', 3, 500],
        ['b', 2, 300, 'no ice'],
      ]),
      claimed,
    )
    const next = outcome.check
    expect(outcome.result).toBe('updated')
    expect(next.table).toBe(claimed.table)
    expect(next.items[1]).toBe(claimed.items[1])
    expect(next.items[1]!.claimed_quantity).toBe(1)
    expect(next.items[0]).not.toBe(claimed.items[0])
    expect(next.items[0]!.quantity).toBe(3)
    expect(next.totals).not.toBe(claimed.totals)
    expect(outcome.events[0]!.data.items).toBe(next.items)
  })

  it('keeps the items and the totals whole when only the status or the table moved', () => {
    const first = push(checkWith([['a', 1, 500]])).check
    const moved = push(checkWith([['a', 1, 500]], {table: {number: '7'}, status: 'closed'}), first).check
    expect(moved.items).toBe(first.items)
    expect(moved.totals).toBe(first.totals)
    expect(moved.table).not.toBe(first.table)
    expect(moved.table.number).toBe('7')
  })

  it('makes an item new when it moved place, even unchanged, and keeps the JSON as a fresh version would be', () => {
    const first = push(
      checkWith([
        ['a', 1, 500],
        ['b', 1, 300],
      ]),
    ).check
    const body = checkWith([
      ['b', 1, 300],
      ['a', 1, 500],
    ])
    const reordered = push(body, first).check
    expect(reordered.items[0]).not.toBe(first.items[1])
    const fresh = push(body).check
    expect(JSON.stringify(reordered.items)).toBe(JSON.stringify(fresh.items))
  })
})

describe('the claims rule', () => {
  const claimedCheck = () => {
    const first = push(
      checkWith([
        ['a', 2, 500],
        ['b', 1, 300],
      ]),
    ).check
    return applyClaim(first, {items: [{external_id: 'a', quantity: 2}]}, 'now', 'http://x').check
  }

  it.each([
    ['removing a claimed item', checkWith([['b', 1, 300]])],
    [
      'lowering its price',
      checkWith([
        ['a', 2, 400],
        ['b', 1, 300],
      ]),
    ],
    [
      'lowering its quantity below what is claimed',
      checkWith([
        ['a', 1, 500],
        ['b', 1, 300],
      ]),
    ],
    [
      'voiding the check',
      checkWith(
        [
          ['a', 2, 500],
          ['b', 1, 300],
        ],
        {status: 'voided'},
      ),
    ],
  ])('%s is a conflict_with_paid_items naming the item', (_, body) => {
    const error = rejects(() => push(body, claimedCheck()), 'conflict_with_paid_items')
    expect(error.details?.map((d) => d.external_id)).toEqual(['a'])
  })

  it('raising the price of a claimed item, or changing an unclaimed one, is accepted', () => {
    expect(
      push(
        checkWith([
          ['a', 2, 650],
          ['b', 1, 300],
        ]),
        claimedCheck(),
      ).result,
    ).toBe('updated')
    expect(push(checkWith([['a', 2, 500]]), claimedCheck()).result).toBe('updated')
  })

  it('voiding a check without claims is accepted', () => {
    const first = push(checkWith([['a', 1, 500]])).check
    expect(push(checkWith([['a', 1, 500]], {status: 'voided'}), first).check.status).toBe('voided')
  })
})

describe('applyClaim', () => {
  const check = () => push(checkWith([['a', 2, 500]])).check

  it('claims units and emits claim.created then check.updated', () => {
    const outcome = applyClaim(check(), {items: [{external_id: 'a', quantity: 1.5}]}, 'now', 'http://x')
    expect(outcome.check.items[0]!.claimed_quantity).toBe(1.5)
    expect(outcome.events.map((e) => e.type)).toEqual(['claim.created', 'check.updated'])
  })

  it('refuses more than is left, all or nothing', () => {
    const once = applyClaim(check(), {items: [{external_id: 'a', quantity: 2}]}, 'now', 'http://x').check
    rejects(
      () => applyClaim(once, {items: [{external_id: 'a', quantity: 0.001}]}, 'now', 'http://x'),
      'item_unavailable',
    )
  })

  it('refuses a closed check and an unknown item', () => {
    const closed = push(checkWith([['a', 1, 500]], {status: 'closed'})).check
    rejects(() => applyClaim(closed, {items: [{external_id: 'a', quantity: 1}]}, 'now', 'http://x'), 'check_not_open')
    rejects(
      () => applyClaim(check(), {items: [{external_id: 'zz', quantity: 1}]}, 'now', 'http://x'),
      'validation_failed',
    )
  })
})
