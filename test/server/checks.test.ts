import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import type {CheckPush} from '../../src/domain/schemas.js'
import {checkWith} from '../helpers/checks.js'
import {startTestServer, type TestServer} from '../helpers/simulator.js'

let sim: TestServer
beforeAll(async () => {
  sim = await startTestServer()
})
afterAll(() => sim.close())
beforeEach(async () => {
  expect((await sim.api('POST', '/v1/sim/reset')).status).toBe(200)
})

const pushTo = (externalId: string, body: unknown) => sim.api('PUT', `/v1/checks/external/${externalId}`, {body})
const events = async () => (await sim.api('GET', '/v1/events?limit=100')).body.data as {type: string; data: any}[]

/** A small deterministic PRNG, so a failing order can be replayed. */
function random(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff
    return seed / 0x80000000
  }
}

function shuffle<T>(list: T[], rand: () => number): T[] {
  const out = [...list]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1))
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

describe('PUT /v1/checks/external/{id}', () => {
  it('answers 201 with the check, then the GETs return the same bytes', async () => {
    const created = await pushTo('t12', checkWith([['a', 1, 1200]], {version: 1}))
    expect(created.status).toBe(201)
    expect(created.headers.get('x-tablepay-push-result')).toBe('created')
    for (const answer of [
      created,
      await sim.api('GET', `/v1/checks/${created.body.id}`),
      await sim.api('GET', '/v1/checks/external/t12'),
    ]) {
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/)
      expect(answer.text).toBe(created.text)
    }
  })

  it('after a change, the push and the GETs answer the new state, not the one they answered before', async () => {
    const first = await pushTo('t13', checkWith([['a', 1, 1200]], {version: 1}))
    await sim.api('GET', `/v1/checks/${first.body.id}`)
    const changed = await pushTo('t13', checkWith([['a', 2, 1200]], {version: 2}))
    expect(changed.body.items[0].quantity).toBe(2)
    expect((await sim.api('GET', `/v1/checks/${first.body.id}`)).text).toBe(changed.text)
    const stale = await pushTo('t13', checkWith([['a', 1, 1200]], {version: 1}))
    expect(stale.headers.get('x-tablepay-push-result')).toBe('stale')
    expect(stale.text).toBe(changed.text)
  })

  it('identical replay 100 times in a row and 20 at once: one check, one check.created, nothing else', async () => {
    const body = checkWith(
      [
        ['a', 2, 450],
        ['b', 1, 900, 'no onions'],
      ],
      {version: 3},
    )
    const first = await pushTo('t1', body)
    for (let i = 0; i < 100; i++) {
      const again = await pushTo('t1', body)
      expect(again.status).toBe(200)
      expect(again.headers.get('x-tablepay-push-result')).toBe('unchanged')
      expect(again.text).toBe(first.text)
    }
    const burst = await Promise.all(Array.from({length: 20}, () => pushTo('t1', body)))
    expect(burst.map((a) => a.status)).toEqual(Array(20).fill(200))
    expect((await sim.api('GET', '/v1/checks')).body.data).toHaveLength(1)
    expect((await events()).map((e) => e.type)).toEqual(['check.created'])
  })

  it('20 identical first pushes at once create one check', async () => {
    const body = checkWith([['a', 1, 100]])
    const answers = await Promise.all(Array.from({length: 20}, () => pushTo('t2', body)))
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1)
    expect(answers.filter((a) => a.status === 200)).toHaveLength(19)
    expect((await events()).map((e) => e.type)).toEqual(['check.created'])
  })

  it('10 checks x 6 versions in any order, with duplicates and concurrent sends, end in the highest version', async () => {
    const states = (check: number) =>
      Array.from({length: 6}, (_, v) =>
        checkWith(
          [
            ['burger', v + 1, 1500],
            [`side-${v}`, 1, 300 + check],
          ],
          {version: v + 1, status: v === 5 ? 'closed' : 'open'},
        ),
      )
    const pushes = Array.from({length: 10}, (_, c) => states(c).map((body) => ({id: `perm-${c}`, body}))).flat()
    for (let round = 0; round < 6; round++) {
      const rand = random(round + 1)
      const order =
        round === 0 ? [...pushes].reverse() : shuffle([...pushes, ...pushes.filter(() => rand() < 0.3)], rand)
      for (let i = 0; i < order.length;) {
        const size = 1 + Math.floor(rand() * 8)
        const batch = order.slice(i, i + size)
        const answers = await Promise.all(batch.map((p) => pushTo(p.id, p.body)))
        expect(answers.map((a) => a.status).every((s) => s === 200 || s === 201)).toBe(true)
        i += size
      }
      for (let c = 0; c < 10; c++) {
        const {body} = await sim.api('GET', `/v1/checks/external/perm-${c}`)
        const last = states(c)[5]!
        expect({
          version: body.version,
          status: body.status,
          items: body.items.map((i: any) => i.external_id),
          totals: body.totals,
        }).toEqual({
          version: 6,
          status: 'closed',
          items: last.items.map((i) => i.external_id),
          totals: last.totals,
        })
      }
      await sim.api('POST', '/v1/sim/reset')
    }
  })

  it('a stale push answers 200 with the current state and changes nothing', async () => {
    const v2 = await pushTo('t3', checkWith([['a', 2, 100]], {version: 2}))
    const before = await events()
    const stale = await pushTo('t3', checkWith([['a', 9, 100]], {version: 1}))
    expect(stale.status).toBe(200)
    expect(stale.headers.get('x-tablepay-push-result')).toBe('stale')
    expect(stale.text).toBe(v2.text)
    expect(await events()).toEqual(before)
  })

  it('the same version with other content is 409 version_conflict and changes nothing', async () => {
    const v1 = await pushTo('t4', checkWith([['a', 1, 100]], {version: 1}))
    const conflict = await pushTo('t4', checkWith([['a', 2, 100]], {version: 1}))
    expect(conflict.status).toBe(409)
    expect(conflict.body.error.code).toBe('version_conflict')
    expect((await sim.api('GET', '/v1/checks/external/t4')).text).toBe(v1.text)
  })

  it('reordering items or changing one note changes exactly that item, and each change emits check.updated', async () => {
    await pushTo(
      't5',
      checkWith([
        ['a', 1, 100],
        ['b', 1, 200],
        ['c', 1, 300],
      ]),
    )
    const reordered = await pushTo(
      't5',
      checkWith([
        ['c', 1, 300],
        ['a', 1, 100],
        ['b', 1, 200],
      ]),
    )
    const noted = await pushTo(
      't5',
      checkWith([
        ['c', 1, 300],
        ['a', 1, 100],
        ['b', 1, 200, 'medium rare'],
      ]),
    )
    const byId = (body: any) => Object.fromEntries(body.items.map((i: any) => [i.external_id, i]))
    expect(byId(reordered.body)).toEqual(byId((await events()).at(-1)!.data))
    const [before, after] = [byId(reordered.body), byId(noted.body)]
    expect(after.a).toEqual(before.a)
    expect(after.c).toEqual(before.c)
    expect(after.b).toEqual({...before.b, note: 'medium rare'})
    expect((await events()).map((e) => e.type)).toEqual(['check.updated', 'check.updated', 'check.created'])
  })

  it('event data is byte for byte what the GET returned at that moment', async () => {
    const created = await pushTo('t6', checkWith([['a', 1, 100]]))
    const [event] = await events()
    const fetched = await sim.api('GET', `/v1/events/${(event as any).id}`)
    expect(JSON.stringify(fetched.body.data)).toBe(created.text)
  })
})

describe('claims and the 409 rule', () => {
  const base = (): CheckPush =>
    checkWith([
      ['steak', 2, 2400],
      ['wine', 1, 900],
    ])

  async function claimedCheck() {
    const {body: check} = await pushTo('claimed', base())
    const claim = await sim.api('POST', `/v1/sim/checks/${check.id}/claims`, {
      body: {items: [{external_id: 'steak', quantity: 1}]},
    })
    expect(claim.status).toBe(201)
    return {check, before: await sim.api('GET', `/v1/checks/${check.id}`)}
  }

  it.each([
    ['removes a claimed item', checkWith([['wine', 1, 900]])],
    [
      'lowers its price',
      checkWith([
        ['steak', 2, 2000],
        ['wine', 1, 900],
      ]),
    ],
    [
      'lowers its quantity below the claimed quantity',
      checkWith([
        ['steak', 0.5, 2400],
        ['wine', 1, 900],
      ]),
    ],
    [
      'voids the check',
      checkWith(
        [
          ['steak', 2, 2400],
          ['wine', 1, 900],
        ],
        {status: 'voided'},
      ),
    ],
  ])('a push that %s answers 409 naming the item and leaves GET byte-for-byte unchanged', async (_, body) => {
    const {check, before} = await claimedCheck()
    const eventsBefore = await events()
    const answer = await pushTo('claimed', body)
    expect(answer.status).toBe(409)
    expect(answer.body.error.code).toBe('conflict_with_paid_items')
    expect(answer.body.error.details.map((d: any) => d.external_id)).toEqual(['steak'])
    expect((await sim.api('GET', `/v1/checks/${check.id}`)).text).toBe(before.text)
    expect(await events()).toEqual(eventsBefore)
  })

  it('raising the price of a claimed item is accepted', async () => {
    await claimedCheck()
    const answer = await pushTo(
      'claimed',
      checkWith([
        ['steak', 2, 2600],
        ['wine', 1, 900],
      ]),
    )
    expect(answer.status).toBe(200)
    expect(answer.body.items[0]).toMatchObject({price_cents: 2600, claimed_quantity: 1})
  })

  it('a claim emits claim.created and check.updated, and the claim reads back', async () => {
    const {check} = await claimedCheck()
    expect((await events()).map((e) => e.type)).toEqual(['check.updated', 'claim.created', 'check.created'])
    const list = await sim.api('GET', `/v1/checks/${check.id}/claims`)
    expect(list.body.data).toHaveLength(1)
    expect((await sim.api('GET', `/v1/claims/${list.body.data[0].id}`)).body).toEqual(list.body.data[0])
  })

  it('over-claiming answers 409 item_unavailable', async () => {
    const {check} = await claimedCheck()
    const answer = await sim.api('POST', `/v1/sim/checks/${check.id}/claims`, {
      body: {items: [{external_id: 'steak', quantity: 2}]},
    })
    expect(answer.status).toBe(409)
    expect(answer.body.error.code).toBe('item_unavailable')
  })
})

describe('lists', () => {
  it('page newest first with limit and starting_after until has_more is false', async () => {
    for (let i = 0; i < 5; i++) await pushTo(`page-${i}`, checkWith([['a', 1, 100 + i]]))
    const seen: string[] = []
    let cursor: string | null = null
    do {
      const page: any = (await sim.api('GET', `/v1/checks?limit=2${cursor ? `&starting_after=${cursor}` : ''}`)).body
      expect(page.object).toBe('list')
      seen.push(...page.data.map((c: any) => c.external_id))
      cursor = page.has_more ? page.next_cursor : null
    } while (cursor)
    expect(seen).toEqual(['page-4', 'page-3', 'page-2', 'page-1', 'page-0'])
  })

  it('filter by status', async () => {
    await pushTo('f-open', checkWith([['a', 1, 100]]))
    await pushTo('f-closed', checkWith([['a', 1, 100]], {status: 'closed'}))
    const {body} = await sim.api('GET', '/v1/checks?status=closed')
    expect(body.data.map((c: any) => c.external_id)).toEqual(['f-closed'])
  })

  it.each([
    'limit=0',
    'limit=101',
    'limit=abc',
    // numbers JavaScript reads but the API's integer is not: hex, exponent, decimal point, sign, spaces
    'limit=0x10',
    'limit=1e1',
    'limit=10.0',
    'limit=+10',
    'limit=%2010',
    'limit=',
    'starting_after=chk_nope',
    // an empty filter, as a variable left unset gives it: refused as an empty starting_after is, not matching nothing
    'starting_after=',
    'location_id=',
    'status=paid',
    'colour=red',
    // names an object has: refused as any unknown parameter, not dropped
    '__proto__=1',
    'constructor=1',
    'hasOwnProperty=1',
  ])('rejects ?%s with 422', async (query) => {
    const answer = await sim.api('GET', `/v1/checks?${query}`)
    expect(answer.status).toBe(422)
    expect(answer.body.error.code).toBe('validation_failed')
  })

  it.each([
    ['limit=0', 'must be 1 to 100'],
    ['limit=101', 'must be 1 to 100'],
    ['limit=9007199254740993', 'must be 1 to 100'],
    ['limit=1e1', 'expected a whole number in digits'],
  ])('says what is wrong with ?%s', async (query, message) => {
    const answer = await sim.api('GET', `/v1/checks?${query}`)
    expect(answer.body.error.details).toEqual([{path: 'limit', message}])
  })
})

describe('serve --public-url', () => {
  it('makes guest_url, in answers and in events, from the URL clients reach the server at', async () => {
    const sim = await startTestServer({serve: {publicUrl: 'https://sandbox.example/tp'}})
    try {
      const pushed = await sim.api('PUT', '/v1/checks/external/pub-1', {body: checkWith([['a', 1, 100]])})
      expect(pushed.body.guest_url).toMatch(/^https:\/\/sandbox\.example\/tp\/t\/[\w-]+$/)
      const {body: events} = await sim.api('GET', '/v1/events?type=check.created')
      expect(events.data.map((event: {data: {guest_url: string}}) => event.data.guest_url)).toEqual([
        pushed.body.guest_url,
      ])
    } finally {
      await sim.close()
    }
  })
})
