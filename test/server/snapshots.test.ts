import {afterEach, describe, expect, it} from 'vitest'
import {DRAWS} from '../../src/domain/chaos.js'
import {EVENT_TYPES, IDEMPOTENCY_KEY_RULE} from '../../src/domain/constants.js'
import {idRule} from '../../src/domain/ids.js'
import {PgStorage} from '../../src/postgres/storage.js'
import {storageOf} from '../../src/server/service.js'
import {Store} from '../../src/store/store.js'
import {checkWith} from '../helpers/checks.js'
import {startReceiver} from '../helpers/receiver.js'
import {rawRequest} from '../helpers/raw-http.js'
import {OTHER_KEY, READ_KEY, startTestServer, TEST_SEED, type TestServer, WRITE_KEY} from '../helpers/simulator.js'
import {openStream} from '../helpers/sse.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

type Respond = Parameters<typeof startReceiver>[0] & {}

/** A server with an endpoint at a receiver that answers as `respond` says (200 until told otherwise). */
async function setup(serve: Parameters<typeof startTestServer>[0] = {}) {
  let respond: Respond = () => 200
  const receiver = await startReceiver((request) => respond(request))
  const sim: TestServer = await startTestServer(serve)
  cleanup.push(
    () => receiver.close(),
    () => sim.close(),
  )
  const endpoint = (
    await sim.api('POST', '/v1/webhook-endpoints', {body: {url: receiver.url, event_types: EVENT_TYPES}})
  ).body as {id: string; secret: string}
  receiver.verifyWith(endpoint.secret)
  const push = async (id: string, key?: string) => {
    const body = {...checkWith([['a', 2, 1000]]), ...(key === OTHER_KEY ? {location_id: 'loc_other_a'} : {})}
    const answer = await sim.api('PUT', `/v1/checks/external/${id}`, {body, key})
    expect(answer.status).toBe(201)
    return answer.body as {id: string; guest_url: string}
  }
  /** A check with a claim, a payment partly refunded, feedback, and a guest POST under an Idempotency-Key. */
  const dinner = async (id: string) => {
    const check = await push(id)
    const claim = await sim.api('POST', `/v1/sim/checks/${check.id}/claims`, {
      body: {items: [{external_id: 'a', quantity: 1}]},
      headers: {'idempotency-key': `claim-${id}`},
    })
    // under a key too: its kept answer is the payment before the refund, which a later import takes as it is
    const payment = await sim.api('POST', `/v1/sim/checks/${check.id}/payments`, {
      body: {amount_cents: 500},
      headers: {'idempotency-key': `pay-${id}`},
    })
    const refund = await sim.api('POST', `/v1/sim/payments/${payment.body.id}/refund`, {body: {amount_cents: 100}})
    const feedback = await sim.api('POST', `/v1/sim/checks/${check.id}/feedback`, {body: {rating: 5}})
    expect([claim.status, payment.status, refund.status, feedback.status]).toEqual([201, 201, 200, 201])
    return {check, claim: claim.body, payment: payment.body, feedback: feedback.body}
  }
  const deliveries = async () => (await sim.api('GET', '/v1/deliveries?limit=100')).body.data as any[]
  /** Every delivery made so far has ended: what the account holds no longer moves. */
  const settled = () =>
    expect.poll(async () => (await deliveries()).filter((d) => d.status === 'pending'), {timeout: 10_000}).toEqual([])
  const save = async (name: string, key?: string) => {
    const saved = await sim.api('POST', '/v1/sim/snapshots', {body: {name}, key})
    expect(saved.status).toBe(201)
    return saved.body
  }
  const restore = async (name: string, key?: string) => {
    const restored = await sim.api('POST', `/v1/sim/snapshots/${name}/restore`, {key})
    expect(restored.status).toBe(200)
    return restored.body
  }
  /**
   * A restore refused since another account has one of the snapshot's ids or guest tokens: 422 naming `name`,
   * its message saying `says` (the holder, or the token), nothing changed; resolves with the message.
   */
  const refusedRestore = async (name: string, key: string, says: string): Promise<string> => {
    const stored = await sim.stored()
    const refused = await sim.api('POST', `/v1/sim/snapshots/${name}/restore`, {key})
    expect([refused.status, refused.body.error.code, refused.body.error.details[0].path]).toEqual([
      422,
      'validation_failed',
      'name',
    ])
    expect(refused.body.error.message).toContain(says)
    expect(await sim.stored()).toBe(stored)
    return refused.body.error.message
  }
  /** `name` saved now, and its document as its export gives it: an import takes it as it is. */
  const savedDocument = async (name: string) => {
    await save(name)
    return (await sim.api('GET', `/v1/sim/snapshots/${name}/export`)).body
  }
  /** The snapshot's records, as its export shows them; deliveries without the restore's mark. */
  const exported = async (name: string, key?: string) => {
    const {body} = await sim.api('GET', `/v1/sim/snapshots/${name}/export`, {key})
    body.records.deliveries = body.records.deliveries.map(({restore: _, ...delivery}: any) => delivery)
    return body
  }
  const clockOffset = async () => (await sim.api('GET', '/v1/sim/clock')).body.offset_seconds as number
  return {
    sim,
    receiver,
    endpoint,
    push,
    dinner,
    deliveries,
    settled,
    save,
    restore,
    refusedRestore,
    exported,
    savedDocument,
    clockOffset,
    respondWith: (next: Respond) => (respond = next),
  }
}

describe('POST /v1/sim/snapshots/{name}/restore', () => {
  it('brings back every record saved and leaves none made after the save, in every collection', async () => {
    const {sim, receiver, dinner, settled, save, restore, exported} = await setup()
    const first = await dinner('t1')
    await settled()
    const t1 = (await sim.api('GET', `/v1/checks/${first.check.id}`)).body
    const saved = await save('base')
    expect(saved).toMatchObject({
      object: 'snapshot',
      name: 'base',
      counts: {locations: 1, checks: 1, claims: 1, payments: 1, refunds: 1, feedback: 1, webhook_endpoints: 1},
    })
    expect(saved.counts.events).toBeGreaterThan(4)
    expect(saved.counts.deliveries).toBe(saved.counts.events)
    const before = await exported('base')

    // one more of everything, and changes to what was saved
    const later = await dinner('t2')
    await sim.api('PUT', '/v1/checks/external/t1', {body: checkWith([['a', 2, 1000]], {version: 2, status: 'closed'})})
    const second = await sim.api('POST', '/v1/webhook-endpoints', {body: {url: receiver.url, event_types: EVENT_TYPES}})
    receiver.verifyWith(second.body.secret)
    await settled()
    const logged = (await sim.api('GET', '/v1/sim/requests?limit=100')).body.data.length
    const fault = await sim.api('POST', '/v1/sim/faults', {body: {status: 503, match: {path: '/v1/claims/clm_none'}}})

    expect(await restore('base')).toEqual(saved)
    for (const gone of [
      `/v1/checks/${later.check.id}`,
      `/v1/claims/${later.claim.id}`,
      `/v1/payments/${later.payment.id}`,
      `/v1/feedback/${later.feedback.id}`,
      `/v1/webhook-endpoints/${second.body.id}`,
    ])
      expect((await sim.api('GET', gone)).status, gone).toBe(404)
    expect((await sim.api('GET', `/v1/checks/${first.check.id}`)).body).toEqual(t1)
    // the idempotency key made after the save is gone: the same key with another body is a new claim
    const again = await sim.api('POST', `/v1/sim/checks/${first.check.id}/claims`, {
      body: {items: [{external_id: 'a', quantity: 1}]},
      headers: {'idempotency-key': 'claim-t2'},
    })
    expect(again.status).toBe(201)
    await restore('base')
    // and every collection holds exactly what was saved: saved again, the two exports match
    await save('after')
    const after = await exported('after')
    expect(after.records).toEqual(before.records)
    // the request log and faults are not part of a snapshot: they kept what came before the restore
    expect((await sim.api('GET', '/v1/sim/requests?limit=100')).body.data.length).toBeGreaterThan(logged)
    expect((await sim.api('GET', '/v1/sim/faults')).body.data.map((f: {id: string}) => f.id)).toEqual([fault.body.id])
  })

  it('attempts the deliveries pending at the save on the restored clock, and records no attempt that was out', async () => {
    const {sim, receiver, push, deliveries, save, restore, clockOffset, respondWith} = await setup()
    respondWith(() => 500)
    await push('t1')
    await receiver.waitFor(1)
    await expect.poll(async () => (await deliveries())[0]?.attempts.length).toBe(1)
    await sim.api('POST', '/v1/sim/clock/advance', {body: {seconds: 30}})
    const [pending] = await deliveries()
    expect(pending).toMatchObject({status: 'pending'})
    const offset = await clockOffset()
    await save('failing')

    // later: the retry fails again, an hour passes, then a retry by hand is out when the restore runs
    await sim.api('POST', '/v1/sim/clock/advance', {body: {seconds: 3600}})
    expect((await deliveries())[0].attempts.length).toBeGreaterThan(1)
    let release!: (status: number) => void
    respondWith(() => new Promise<number>((resolve) => (release = resolve)))
    const sent = receiver.received.length
    await sim.api('POST', `/v1/deliveries/${pending.id}/retry`)
    await receiver.waitFor(sent + 1)
    await restore('failing')
    expect(await clockOffset()).toBe(offset)
    release(200)
    // an advance ends once the attempts out have ended and been recorded, or not
    await sim.api('POST', '/v1/sim/clock/advance', {body: {seconds: 1}})
    const [restored] = await deliveries()
    expect(restored).toEqual({...pending})

    // due a minute after the first attempt, on the restored clock: 29 s more
    respondWith(() => 200)
    await sim.api('POST', '/v1/sim/clock/advance', {body: {seconds: 27}})
    expect((await deliveries())[0].attempts.length).toBe(1)
    await sim.api('POST', '/v1/sim/clock/advance', {body: {seconds: 3}})
    const [delivered] = await deliveries()
    expect(delivered).toMatchObject({status: 'succeeded', attempts: [{status_code: 500}, {status_code: 200}]})
  })

  it('sends the live streams a reset: the account stream, and a table page its check as restored', async () => {
    const {sim, push, settled, save, restore} = await setup()
    const check = await push('t1')
    await settled()
    await save('one')
    await sim.api('PUT', '/v1/checks/external/t1', {body: checkWith([['a', 2, 1000]], {version: 2})})
    const account = await openStream(`${sim.url}/v1/sim/stream`, {authorization: 'Bearer tp_test_demo_write'})
    const page = await openStream(`${check.guest_url}/stream`)
    cleanup.push(
      async () => account.close(),
      async () => page.close(),
    )
    await page.until((text) => text.includes('"version":2,'))
    await restore('one')
    await account.until((text) => text.includes('event: reset'))
    expect(account.text).toContain('event: reset\ndata: {"object":"reset","account_id":"acct_demo"}\n\n')
    // nothing of the restore's records one by one
    expect(account.text).not.toContain('event: event')
    const text = await page.until((text) => text.includes('event: reset'))
    const after = text.slice(text.indexOf('event: reset'))
    expect(after).toMatch(new RegExp(`^event: reset\ndata: \\{"id":"${check.id}"\\}\n\nevent: check\ndata: \\{`))
    expect(after).not.toContain('"version":2,')
    // a page opened since, while the other stays open, was not there: it gets the check as it is, no reset
    const opened = await openStream(`${check.guest_url}/stream`)
    cleanup.push(async () => opened.close())
    expect(await opened.until((text) => text.includes('event: check'))).toMatch(/^event: check\ndata: \{/)
    // the check put back in the restore's change is not gone: the first page still follows it
    await sim.api('PUT', '/v1/checks/external/t1', {body: checkWith([['a', 3, 1000]], {version: 3})})
    await page.until((text) => text.includes('"version":3,'))
  })

  it("restores one account's records only: another account's, and its snapshots, stay as they are", async () => {
    const {sim, push, settled, save, restore} = await setup()
    await push('t1')
    await settled()
    await save('shared-name')
    const theirs = await push('o1', OTHER_KEY)
    await save('shared-name', OTHER_KEY)
    await push('o2', OTHER_KEY)
    await push('t2')
    await restore('shared-name')
    const listed = (await sim.api('GET', '/v1/checks', {key: OTHER_KEY})).body.data
    expect(listed.map((c: {external_id: string}) => c.external_id)).toEqual(['o2', 'o1'])
    expect((await sim.api('GET', `/v1/checks/${theirs.id}`, {key: OTHER_KEY})).status).toBe(200)
    expect((await sim.api('GET', '/v1/sim/snapshots/shared-name', {key: OTHER_KEY})).body.counts.checks).toBe(1)
    await restore('shared-name', OTHER_KEY)
    expect((await sim.api('GET', '/v1/checks', {key: OTHER_KEY})).body.data).toHaveLength(1)
    expect((await sim.api('GET', '/v1/checks')).body.data).toHaveLength(1)
  })

  it('lists the records in the order they had at the save, one deleted since among them', async () => {
    const {sim, receiver, save, restore} = await setup()
    for (const path of ['/b', '/c'])
      expect((await sim.api('POST', '/v1/webhook-endpoints', {body: {url: receiver.url + path}})).status).toBe(201)
    const listed = async () => (await sim.api('GET', '/v1/webhook-endpoints')).body.data.map((e: {id: string}) => e.id)
    const saved = await listed()
    expect(saved).toHaveLength(3)
    await save('three')
    expect((await sim.api('DELETE', `/v1/webhook-endpoints/${saved[1]}`)).status).toBe(200)
    await restore('three')
    expect(await listed()).toEqual(saved)
  })

  it('keeps each push that runs during a save or a restore whole or gone, never half', async () => {
    const {sim, push, save, restore} = await setup()
    await push('base')
    await save('base')
    const created = (events: {type: string; data: {id: string}}[]) =>
      events.filter((e) => e.type === 'check.created').map((e) => e.data.id)
    for (let round = 0; round < 3; round++) {
      const pushes = (from: number) =>
        Array.from({length: 15}, (_, i) =>
          sim.api('PUT', `/v1/checks/external/r${round}-${from + i}`, {body: checkWith([['a', 2, 1000]])}),
        )
      const first = pushes(0)
      const middle = [save('mid'), restore('base')]
      const answers = await Promise.all([...first, ...pushes(15)])
      await Promise.all(middle)
      expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 201))
      // the account now: the saved check, and the pushes that came after the restore, each with its event
      const checks = (await sim.api('GET', '/v1/checks?limit=100')).body.data.map((c: {id: string}) => c.id)
      const events = (await sim.api('GET', '/v1/events?limit=100&type=check.created')).body.data
      expect(created(events).sort()).toEqual([...checks].sort())
      // the save: each check with its event, each event with its check
      const {records} = (await sim.api('GET', '/v1/sim/snapshots/mid/export')).body
      expect(created(records.events).sort()).toEqual(records.checks.map((c: {id: string}) => c.id).sort())
    }
  })

  it('answers each claim and endpoint change that runs during a restore as before it or after it: never a 404 for what both hold', async () => {
    const {sim, endpoint, push, save, restore} = await setup()
    const check = await push('claimed')
    await save('claimed')
    for (let round = 0; round < 5; round++) {
      const claims = Array.from({length: 10}, (_, i) =>
        sim.api('POST', `/v1/sim/checks/${check.id}/claims`, {
          body: {items: [{external_id: 'a', quantity: 1}]},
          headers: {'idempotency-key': `r${round}-${i}`},
        }),
      )
      const changes = Array.from({length: 10}, (_, i) =>
        sim.api('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, {body: {description: `r${round}-${i}`}}),
      )
      const [answers, changed] = await Promise.all([Promise.all(claims), Promise.all(changes), restore('claimed')])
      // a claim takes one of the check's 2, or is refused for want of any left (as the restore or the claims
      // before it leave them), but always finds the check
      expect(answers.filter((answer) => answer.status === 404 || answer.status >= 500).map((a) => a.body)).toEqual([])
      expect(changed.map((answer) => answer.status)).toEqual(changes.map(() => 200))
    }
  })

  it('saves each event with its deliveries, even those of a push to many endpoints just before', async () => {
    const {sim, push, save, restore, deliveries} = await setup()
    const others = await startReceiver(() => 200)
    cleanup.push(() => others.close())
    // past 8 deliveries a push leaves them to a fan-out after it, where the store writes it on its own
    for (let i = 0; i < 9; i++)
      expect((await sim.api('POST', '/v1/webhook-endpoints', {body: {url: `${others.url}/${i}`}})).status).toBe(201)
    // the save comes while the later pushes are stored, and their fan-outs not all written
    const pushes = Array.from({length: 8}, (_, i) => push(`t${i}`))
    await Promise.all([pushes[0]!.then(() => save('fanned')), ...pushes])
    const {records} = (await sim.api('GET', '/v1/sim/snapshots/fanned/export')).body
    expect(records.events.length).toBeGreaterThan(0)
    for (const event of records.events)
      expect(records.deliveries.filter((d: {event_id: string}) => d.event_id === event.id)).toHaveLength(10)
    await push('t-after')
    await restore('fanned')
    const restored = await deliveries()
    for (const event of records.events) expect(restored.filter((d) => d.event_id === event.id)).toHaveLength(10)
  })

  it('finds snapshots again after a restart, and restores them then', async () => {
    const {sim, push, settled, save, restore} = await setup()
    await push('t1')
    await settled()
    const saved = await save('kept')
    await push('t2')
    await sim.stop()
    await sim.restart()
    expect((await sim.api('GET', '/v1/sim/snapshots')).body).toEqual({
      object: 'list',
      data: [saved],
      has_more: false,
      next_cursor: null,
    })
    await restore('kept')
    expect((await sim.api('GET', '/v1/checks')).body.data.map((c: {external_id: string}) => c.external_id)).toEqual([
      't1',
    ])
  })
})

describe('snapshots: list, get, delete, export and import', () => {
  it('imports its own export of every kind of record: a claim, a payment refunded after its key was kept, feedback', async () => {
    const {sim, dinner, settled, save, restore} = await setup()
    const {check} = await dinner('t1')
    await settled()
    await save('dinner')
    const {body: document} = await sim.api('GET', '/v1/sim/snapshots/dinner/export')
    const imported = await sim.api('POST', '/v1/sim/snapshots/import', {body: {...document, name: 'again'}})
    expect([imported.status, imported.body.error]).toEqual([201, undefined])
    expect(imported.body.counts).toMatchObject({payments: 1, refunds: 1, idempotency_keys: 2})
    await restore('again')
    expect((await sim.api('GET', `/v1/checks/${check.id}`)).body).toMatchObject({amount_paid_cents: 400})
  })

  it('imports records with fields the API does not define, and answers none of them', async () => {
    const {sim, dinner, settled, save, restore, deliveries} = await setup()
    const {claim} = await dinner('t1')
    await settled()
    await save('dinner')
    const {body: document} = await sim.api('GET', '/v1/sim/snapshots/dinner/export')
    const extra = <T extends object>(record: T) => ({...record, zzz_internal: 'leaked'})
    const records = document.records
    records.claims = records.claims.map(extra)
    records.deliveries = records.deliveries.map((d: {attempts: object[]}) =>
      extra({...d, attempts: d.attempts.map(extra)}),
    )
    const imported = await sim.api('POST', '/v1/sim/snapshots/import', {body: {...document, name: 'extra'}})
    expect([imported.status, imported.body.error]).toEqual([201, undefined])
    await restore('extra')
    const [delivery] = await deliveries()
    const answers = [
      await sim.api('GET', `/v1/claims/${claim.id}`),
      await sim.api('GET', `/v1/deliveries/${delivery.id}`),
      await sim.api('GET', `/v1/checks/${claim.check_id}/claims`),
      await sim.api('GET', '/v1/deliveries?limit=100'),
    ]
    // the field's name: 'zzz' alone turns up in a random id now and then
    for (const answer of answers)
      expect([answer.status, answer.text]).toEqual([200, expect.not.stringContaining('zzz_internal')])
  })

  it('lists newest first in pages, replaces a name saved again, and deletes', async () => {
    const {sim, push, save} = await setup()
    await save('a')
    await save('b')
    await push('t1')
    const replaced = await save('a')
    const page = await sim.api('GET', '/v1/sim/snapshots?limit=1')
    expect(page.body).toEqual({object: 'list', data: [replaced], has_more: true, next_cursor: 'a'})
    const next = await sim.api('GET', '/v1/sim/snapshots?limit=1&starting_after=a')
    expect(next.body.data.map((s: {name: string}) => s.name)).toEqual(['b'])
    expect((await sim.api('GET', '/v1/sim/snapshots/a')).body.counts.checks).toBe(1)
    const deleted = await sim.api('DELETE', '/v1/sim/snapshots/a')
    expect(deleted.body).toEqual({id: 'a', object: 'snapshot', deleted: true})
    expect((await sim.api('GET', '/v1/sim/snapshots/a')).status).toBe(404)
    // the list keeps no places: the cursor of a snapshot gone since names nothing (docs/api.md, "Lists")
    const gone = await sim.api('GET', '/v1/sim/snapshots?limit=1&starting_after=a')
    expect([gone.status, gone.body.error.details[0].path]).toEqual([422, 'starting_after'])
  })

  it("exports a document that import takes back under its name, ids kept, into the caller's account", async () => {
    const {sim, push, settled, save, restore, refusedRestore} = await setup()
    const check = await push('t1')
    await settled()
    await save('exported')
    const {body: document} = await sim.api('GET', '/v1/sim/snapshots/exported/export')
    expect(document).toMatchObject({tablepay_snapshot: 1, name: 'exported', account: 'acct_demo', clock_offset_ms: 0})
    expect(document.records.checks.map((c: {id: string}) => c.id)).toEqual([check.id])

    // on another server, into another account: the same ids, now that account's
    const elsewhere = await startTestServer({serve: {seed: {accounts: [TEST_SEED.accounts[1]!]}}})
    cleanup.push(() => elsewhere.close())
    const imported = await elsewhere.api('POST', '/v1/sim/snapshots/import', {
      body: {...document, name: 'from-demo'},
      key: OTHER_KEY,
    })
    expect([imported.status, imported.body.error]).toEqual([201, undefined])
    expect(imported.body).toMatchObject({object: 'snapshot', name: 'from-demo', counts: {checks: 1}})
    expect((await elsewhere.api('POST', '/v1/sim/snapshots/from-demo/restore', {key: OTHER_KEY})).status).toBe(200)
    const theirs = await elsewhere.api('GET', `/v1/checks/${check.id}`, {key: OTHER_KEY})
    expect(theirs.body).toMatchObject({id: check.id, external_id: 't1'})

    // here, into another account while this one holds those ids: refused, nothing moves
    const foreign = await sim.api('POST', '/v1/sim/snapshots/import', {body: document, key: OTHER_KEY})
    expect(foreign.status).toBe(201)
    // the way out: an import into the account that holds them, or into a server where none does
    const message = await refusedRestore('exported', OTHER_KEY, 'acct_demo')
    expect(message).toMatch(
      /export it, and import it into acct_demo, or into a server where no other account holds \w+$/,
    )
    expect((await sim.api('GET', `/v1/checks/${check.id}`)).status).toBe(200)

    // here, an import replaces the snapshot of its name; its time at any RFC 3339 offset is kept in UTC
    await sim.api('DELETE', '/v1/sim/snapshots/exported')
    const offset = {...document, created_at: '2020-01-01t01:00:00+01:00'}
    const replaced = await sim.api('POST', '/v1/sim/snapshots/import', {body: offset})
    expect([replaced.status, replaced.body.created_at]).toEqual([201, '2020-01-01T00:00:00.000Z'])
    await push('t2')
    await restore('exported')
    expect((await sim.api('GET', '/v1/checks')).body.data).toHaveLength(1)
  })
})

describe('snapshots: the export of a read key', () => {
  it('is refused: the document holds the signing secrets that a read key never sees, however the path is spelled', async () => {
    const {sim, endpoint, save} = await setup()
    await save('kept')
    const stored = await sim.stored()
    for (const [method, path] of [
      ['GET', '/v1/sim/snapshots/kept/export'],
      ['GET', '/v1/sim/snapshots/kept/export/'],
      ['GET', '/v1/sim/snapshots/kept/%65xport'],
      ['GET', '/v1/sim/snapshots/none/export'],
      ['HEAD', '/v1/sim/snapshots/kept/export'],
    ] as const) {
      const refused = await rawRequest(sim.url, method, path, {headers: {authorization: `Bearer ${READ_KEY}`}})
      expect(refused.status, `${method} ${path}`).toBe(403)
      if (method === 'GET') {
        expect(refused.text).not.toContain(endpoint.secret)
        expect((refused.body as any).error).toMatchObject({
          code: 'insufficient_scope',
          message: expect.stringContaining('holds webhook signing secrets'),
        })
      }
    }
    expect(await sim.stored()).toBe(stored)
    // the reads of a read key that hold no secret answer as before
    expect((await sim.api('GET', '/v1/sim/snapshots/kept', {key: READ_KEY})).status).toBe(200)
    expect((await sim.api('GET', '/v1/sim/snapshots', {key: READ_KEY})).status).toBe(200)
    // and a write key exports the secret with the rest, as an import needs it
    expect(JSON.stringify((await sim.api('GET', '/v1/sim/snapshots/kept/export')).body)).toContain(endpoint.secret)
  })
})

describe('snapshots: an endpoint stored before its URL had to be a URI', () => {
  it('restores, and its export imports again, though a body could no longer set that URL', async () => {
    const {sim, save} = await setup()
    await save('legacy')
    const {body: exported} = await sim.api('GET', '/v1/sim/snapshots/legacy/export')
    const url = 'http://127.0.0.1:9/a b/café'
    const endpoint = {...exported.records.webhook_endpoints[0], url}
    const document = {...exported, records: {...exported.records, webhook_endpoints: [endpoint]}}
    expect((await sim.api('POST', '/v1/sim/snapshots/import', {body: document})).status).toBe(201)
    expect((await sim.api('POST', '/v1/sim/snapshots/legacy/restore')).status).toBe(200)
    expect((await sim.api('GET', `/v1/webhook-endpoints/${endpoint.id}`)).body.url).toBe(url)
    const again = (await sim.api('GET', '/v1/sim/snapshots/legacy/export')).body
    expect((await sim.api('POST', '/v1/sim/snapshots/import', {body: again})).status).toBe(201)
    const refused = await sim.api('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, {body: {url}})
    expect(refused.status).toBe(422)
  })
})

describe('snapshots: a clock offset with a fraction of a millisecond, as an advance of part of a second leaves', () => {
  it('imports, and exports again as it was', async () => {
    const sim = await startTestServer()
    cleanup.push(() => sim.close())
    expect((await sim.api('POST', '/v1/sim/snapshots', {body: {name: 'fraction'}})).status).toBe(201)
    const {body: exported} = await sim.api('GET', '/v1/sim/snapshots/fraction/export')
    const document = {...exported, name: 'again', clock_offset_ms: 100.09765625}
    expect((await sim.api('POST', '/v1/sim/snapshots/import', {body: document})).status).toBe(201)
    const again = (await sim.api('GET', '/v1/sim/snapshots/again/export')).body
    expect(again.clock_offset_ms).toBe(100.09765625)
  })
})

describe('snapshots: a record nested past any the API makes', () => {
  it('is refused with 422 naming it, however deep, in every kind of record, the snapshot not stored', async () => {
    const sim = await startTestServer()
    cleanup.push(() => sim.close())
    const deep = `${'['.repeat(12_000)}${']'.repeat(12_000)}`
    for (const kind of ['payments', 'webhook_endpoints', 'deliveries', 'checks']) {
      const body =
        '{"tablepay_snapshot":1,"name":"deep","account":"acct_demo","created_at":"2026-01-01T00:00:00.000Z",' +
        `"clock_offset_ms":0,"records":{"${kind}":[{"id":"x1","n":${deep}}]}}`
      const refused = await sim.api('POST', '/v1/sim/snapshots/import', {body})
      expect([kind, refused.status, refused.body.error.details]).toEqual([
        kind,
        422,
        expect.arrayContaining([{path: `records.${kind}.0`, message: 'nests deeper than 32 levels'}]),
      ])
    }
    expect((await sim.api('GET', '/v1/sim/snapshots/deep')).status).toBe(404)
  })
})

describe("snapshots: a field a record's kind does not have", () => {
  it('is kept as it is; a number past the largest double, which would come back as null, is refused naming it', async () => {
    const {sim, save} = await setup()
    await save('good')
    const {body: document} = await sim.api('GET', '/v1/sim/snapshots/good/export')
    const [endpoint] = document.records.webhook_endpoints
    const withField = (name: string, value: unknown) => ({
      ...document,
      name,
      records: {...document.records, webhook_endpoints: [{...endpoint, x: value}]},
    })
    // JSON.stringify writes Infinity as null: the body is written by hand
    const past = JSON.stringify(withField('past', 'PAST')).replace('"PAST"', '1e400')
    const refused = await sim.api('POST', '/v1/sim/snapshots/import', {body: past})
    expect([refused.status, refused.body.error.details]).toEqual([
      422,
      [{path: 'records.webhook_endpoints.0.x', message: expect.stringMatching(/^is a number past the largest JSON/)}],
    ])
    const kept = await sim.api('POST', '/v1/sim/snapshots/import', {body: withField('kept', 1e300)})
    expect(kept.status).toBe(201)
    const exported = await sim.api('GET', '/v1/sim/snapshots/kept/export')
    expect(exported.body.records.webhook_endpoints[0].x).toBe(1e300)
  })
})

describe('snapshots: an import too large to check whole', () => {
  const head =
    '{"tablepay_snapshot":1,"name":"big","account":"acct_demo","created_at":"2026-01-01T00:00:00.000Z","records":'

  it('lists the first 100 problems of 160,000 wrong records, and says there are more', async () => {
    const sim = await startTestServer()
    cleanup.push(() => sim.close())
    const body = `${head}{"checks":[${Array(160_000).fill('{}').join(',')}]}}`
    const refused = await sim.api('POST', '/v1/sim/snapshots/import', {body})
    expect([refused.status, refused.body.error.code, refused.body.error.details.length]).toEqual([
      422,
      'validation_failed',
      100,
    ])
    expect(refused.body.error.message).toMatch(/records\.checks\.0\.id: .*\(and more: details lists the first 100\)\.$/)
    expect(refused.body.error.details[99].path).toBe('records.checks.99.id')
    expect((await sim.api('GET', '/v1/sim/snapshots/big')).status).toBe(404)
  })

  it('refuses a record holding a list longer than any a record holds, naming the list', async () => {
    const sim = await startTestServer()
    cleanup.push(() => sim.close())
    const body = `${head}{"checks":[{"id":"chk_1","items":[${Array(200_000).fill('{}').join(',')}]}]}}`
    const refused = await sim.api('POST', '/v1/sim/snapshots/import', {body})
    expect([refused.status, refused.body.error.details]).toEqual([
      422,
      [{path: 'records.checks.0.items', message: 'holds 200000 entries, more than the 5000 a list in a record may'}],
    ])
  })

  it('refuses a body whose numbers would be written back longer than the store can write, before parsing it', async () => {
    const {sim, dinner, save} = await setup()
    await dinner('t1')
    await save('good')
    // its connection is not kept: building the body below holds this process, the server's too, for seconds, after
    // which a kept connection was taken for the import just as the server's idle timeout closed it (ECONNRESET)
    const exported = await sim.api('GET', '/v1/sim/snapshots/good/export', {headers: {connection: 'close'}})
    const document = exported.body
    // 125 MB of 1e20 in lists of 5,000, in a field an idempotency key's record may have beside its own:
    // 550 million characters written with their digits, past the longest string the store could write it as
    const list = `[${'1e20,'.repeat(4999)}1]`
    const [key] = document.records.idempotency_keys
    const records = {...document.records, idempotency_keys: [{...key, x: 'LISTS'}]}
    const body = JSON.stringify({...document, name: 'digits', records}).replace(
      '"LISTS"',
      `[${`${list},`.repeat(4999)}${list}]`,
    )
    const refused = await sim.api('POST', '/v1/sim/snapshots/import', {body})
    expect([refused.status, refused.body.error.code]).toEqual([413, 'payload_too_large'])
    expect(refused.body.error.message).toMatch(/numbers sent with an exponent \(1e20\) would be written back/)
    expect((await sim.api('GET', '/v1/sim/snapshots/digits')).status).toBe(404)
  })

  it('refuses a body whose small values would take gigabytes once parsed, before parsing it, and serves on', async () => {
    const sim = await startTestServer()
    cleanup.push(() => sim.close())
    // 36 MB of empty objects: 64 bytes each once parsed, and zod would make a problem of each
    const body = `${head}{"checks":[{"id":"chk_1","items":[${'{},'.repeat(12_000_000)}{}]}]}}`
    const refused = await sim.api('POST', '/v1/sim/snapshots/import', {body})
    expect([refused.status, refused.body.error.code]).toEqual([413, 'payload_too_large'])
    expect(refused.body.error.message).toMatch(/would take up to 1\.\d\d GiB of memory once read/)
    // nor does the request log parse it
    const {body: logged} = await sim.api('GET', `/v1/sim/requests/${refused.body.error.request_id}`)
    expect([logged.request_body_truncated, logged.request_body]).toEqual([
      true,
      expect.stringMatching(/^\[not kept: a body of 36000\d+ characters/),
    ])
    expect((await sim.api('GET', '/v1/health')).status).toBe(200)
  })
})

describe('snapshots: ids another account holds', () => {
  it("refuses to restore a snapshot saved after an import while the ids are the exporter's again", async () => {
    const {sim, push, settled, save, restore, refusedRestore} = await setup()
    await save('blank')
    await save('blank', OTHER_KEY)
    const check = await push('t1')
    await settled()
    await save('full')
    const {body: document} = await sim.api('GET', '/v1/sim/snapshots/full/export')
    const {body: theirs} = await sim.api('GET', '/v1/sim/snapshots/blank/export', {key: OTHER_KEY})
    // the exporter lets go of its check's id (its location and endpoint, made before, it keeps: the import
    // leaves them out); the other account takes it with the import, at a location of its own, and saves it as its own
    await restore('blank')
    const [location] = theirs.records.locations
    const checks = document.records.checks.map((check: object) => ({...check, location_id: location.id}))
    const imported = {...document, records: {locations: [location], checks}}
    expect((await sim.api('POST', '/v1/sim/snapshots/import', {body: imported, key: OTHER_KEY})).status).toBe(201)
    await restore('full', OTHER_KEY)
    await save('mine', OTHER_KEY)
    await restore('blank', OTHER_KEY)
    await restore('full')

    await refusedRestore('mine', OTHER_KEY, 'acct_demo')
    expect((await sim.api('GET', `/v1/checks/${check.id}`)).body).toMatchObject({id: check.id, external_id: 't1'})
    expect((await sim.api('GET', '/v1/checks', {key: OTHER_KEY})).body.data).toEqual([])
  })

  it("refuses to restore a check given another account's guest token, naming the token and not the account", async () => {
    const {sim, push, settled, save, refusedRestore} = await setup()
    const theirs = await push('theirs', OTHER_KEY)
    const token = new URL(theirs.guest_url).pathname.split('/').at(-1)!
    await push('mine')
    await settled()
    await save('mine')
    const {body: document} = await sim.api('GET', '/v1/sim/snapshots/mine/export')
    const [check] = document.records.checks
    const stolen = {
      ...document,
      name: 'stolen',
      records: {...document.records, checks: [{...check, guest_token: token}]},
    }
    expect((await sim.api('POST', '/v1/sim/snapshots/import', {body: stolen})).status).toBe(201)

    const message = await refusedRestore('stolen', WRITE_KEY, token)
    expect(message).not.toContain('acct_other')
    expect(message).toContain('export it, and import it again with another token for that check, or into a server')
    // the table link still opens the check of the account that made it
    expect((await sim.api('GET', `/t/${token}/check`)).body).toMatchObject({id: theirs.id})
  })
})

describe('snapshots: one imported before import checked its records', () => {
  it('refuses to restore a check held twice, naming the field, and changes nothing', async () => {
    const {sim, push, settled, save, refusedRestore} = await setup()
    await push('dupA')
    await push('dupB')
    await settled()
    const twins = ['external_id', 'guest_token', 'id'] as const
    for (const field of twins) await save(`twin-${field.replace('_', '-')}`)
    // what an import took before it checked keys: the store itself, edited while the server is stopped
    await sim.stop()
    const store = sim.database ? await PgStorage.open({url: sim.database}) : await Store.open({dir: sim.dataDir})
    await storageOf(store).unit(async (tx) => {
      for (const field of twins) {
        const key = `acct_demo/twin-${field.replace('_', '-')}`
        const snapshot = (await tx.get('snapshots', key))!
        const [first, second] = snapshot.records.checks
        Object.assign(second!, {[field]: first![field]})
        tx.put('snapshots', key, snapshot)
      }
    })
    await store.close()
    await sim.restart()

    for (const field of twins) {
      const value = field === 'id' ? 'checks chk_' : `checks ${field} `
      const message = await refusedRestore(`twin-${field.replace('_', '-')}`, WRITE_KEY, value)
      expect(message).toMatch(/twice.*import it again/)
    }
    const {body} = await sim.api('GET', '/v1/checks')
    expect(body.data.map((check: {external_id: string}) => check.external_id).sort()).toEqual(['dupA', 'dupB'])
  })
})

describe("snapshots: keys that name another account's records", () => {
  it('refuses to restore an older import holding one, naming it, and changes nothing', async () => {
    const {sim, dinner, settled, save, refusedRestore} = await setup()
    await dinner('t1')
    await settled()
    for (const name of ['keyed', 'placed', 'squatted']) await save(name)
    // what an import took before it checked these keys: the store itself, edited while the server is stopped
    await sim.stop()
    const store = sim.database ? await PgStorage.open({url: sim.database}) : await Store.open({dir: sim.dataDir})
    await storageOf(store).unit(async (tx) => {
      const keyed = (await tx.get('snapshots', 'acct_demo/keyed'))!
      const [key] = keyed.records.idempotency_keys
      key!.id = `acct_other\u0000api\u0000${key!.key}`
      tx.put('snapshots', keyed.id, keyed)
      const placed = (await tx.get('snapshots', 'acct_demo/placed'))!
      Object.assign(placed.records.webhook_endpoints[0]!, {id: 'we_mine', stored_as: 'acct_other/we_mine'})
      tx.put('snapshots', placed.id, placed)
      const squatted = (await tx.get('snapshots', 'acct_demo/squatted'))!
      squatted.records.webhook_endpoints[0]!.id = 'acct_other/we_mine'
      tx.put('snapshots', squatted.id, squatted)
    })
    await store.close()
    await sim.restart()

    expect(await refusedRestore('keyed', WRITE_KEY, 'idempotency_keys 0 whose id')).toMatch(/import it again/)
    expect(await refusedRestore('placed', WRITE_KEY, 'webhook_endpoints 0 whose stored_as')).toMatch(/acct_demo/)
    expect(await refusedRestore('squatted', WRITE_KEY, 'webhook_endpoints 0 whose id')).toMatch(/we_ then/)
  })
})

describe("snapshots: a delivery naming another account's event", () => {
  it('is canceled when it comes due after its restore, and sends that event nowhere', async () => {
    const {sim, receiver, push, settled, save} = await setup()
    await push('t1')
    await settled()
    await save('full')
    const {body: mine} = await sim.api('GET', '/v1/sim/snapshots/full/export')
    const [event] = mine.records.events
    await save('blank', OTHER_KEY)
    const {body: blank} = await sim.api('GET', '/v1/sim/snapshots/blank/export', {key: OTHER_KEY})
    // a document of the other account, its endpoint at the same receiver, its delivery naming this account's event
    const endpoint = {...mine.records.webhook_endpoints[0], id: 'we_theirs'}
    const [delivery] = mine.records.deliveries
    const due = new Date().toISOString()
    const pending = {...delivery, id: 'dlv_theirs', endpoint_id: 'we_theirs', status: 'pending', attempts: []}
    const records = {...blank.records, webhook_endpoints: [endpoint], deliveries: [{...pending, next_attempt_at: due}]}
    const imported = await sim.api('POST', '/v1/sim/snapshots/import', {
      body: {...blank, name: 'theirs', records},
      key: OTHER_KEY,
    })
    expect(imported.status).toBe(201)
    const sent = receiver.received.length

    expect((await sim.api('POST', '/v1/sim/snapshots/theirs/restore', {key: OTHER_KEY})).status).toBe(200)
    await expect
      .poll(async () => (await sim.api('GET', '/v1/deliveries/dlv_theirs', {key: OTHER_KEY})).body.status, {
        timeout: 10_000,
      })
      .toBe('canceled')
    expect(receiver.received.length).toBe(sent)
    expect(event.account_id).toBe('acct_demo')
  })
})

describe('snapshots: webhook endpoints past the limit', () => {
  it('refuses to import or restore more than an account may have, 422 limit_reached, and changes nothing', async () => {
    const {sim, save} = await setup({serve: {limits: {webhook_endpoints: 2}}})
    await sim.api('POST', '/v1/webhook-endpoints', {
      body: {url: 'http://127.0.0.1:9/two', event_types: ['check.created']},
    })
    await save('two')
    const {body: document} = await sim.api('GET', '/v1/sim/snapshots/two/export')
    const [endpoint] = document.records.webhook_endpoints
    const three = {
      ...document,
      name: 'three',
      records: {
        ...document.records,
        webhook_endpoints: [...document.records.webhook_endpoints, {...endpoint, id: 'we_third', stored_as: undefined}],
      },
    }
    const stored = await sim.stored()
    const refused = await sim.api('POST', '/v1/sim/snapshots/import', {body: three})
    expect([refused.status, refused.body.error.code, refused.body.error.details]).toEqual([
      422,
      'limit_reached',
      [{path: 'webhook_endpoints', message: 'at most 2 per account'}],
    ])
    expect(refused.body.error.message).toContain('more webhook endpoints (3) than an account may have (2)')
    expect(await sim.stored()).toBe(stored)
    // one imported under a higher limit, restored under this one
    await sim.stop()
    await sim.restart({limits: {webhook_endpoints: 3}})
    expect((await sim.api('POST', '/v1/sim/snapshots/import', {body: three})).status).toBe(201)
    await sim.stop()
    await sim.restart({limits: {webhook_endpoints: 2}})
    const before = await sim.stored()
    const restore = await sim.api('POST', '/v1/sim/snapshots/three/restore')
    expect([restore.status, restore.body.error.code]).toEqual([422, 'limit_reached'])
    expect(await sim.stored()).toBe(before)
  })
})

/** What a push of `body` to the check `externalId` says at `field`: an import names the same rules. */
async function pushRule(sim: TestServer, externalId: string, body: unknown, field: string): Promise<string> {
  const answer = await sim.api('PUT', `/v1/checks/external/${externalId}`, {body})
  return answer.body.error.details.find((d: {path: string}) => d.path === field).message as string
}

const NO_TOTALS = {subtotal_cents: 0, tax_cents: 0, total_cents: 0}

/** Imports `document`, refused with 422 naming `at` with `rule` (`value`: what the message names beside `at`). */
async function expectRefusedAt(sim: TestServer, document: unknown, at: string, rule: string, value = '') {
  const answer = await sim.api('POST', '/v1/sim/snapshots/import', {body: document})
  expect([answer.status, answer.body.error?.code], `${at} ${value}`).toEqual([422, 'validation_failed'])
  expect(answer.body.error.details, at).toContainEqual({path: at, message: rule})
}

describe('snapshots: ids no route reaches', () => {
  it('refuses each with 422 naming the field and the rule a push or the server holds ids to, and stores nothing', async () => {
    const {sim, dinner, settled, savedDocument} = await setup()
    await dinner('t1')
    await settled()
    const document = await savedDocument('good')
    // what a push says of such ids: the import names the same rules
    const externalId = await pushRule(sim, 'a%20b', checkWith([['a', 1, 100]]), 'external_check_id')
    const itemId = await pushRule(sim, 't2', checkWith([['', 1, 100]]), 'items.0.external_id')
    const refused: [collection: string, field: string, value: string, rule: string][] = [
      // the push's path could not name the check: it would be found by no external id, pushed to never again
      ['checks', 'external_id', 'a/b', externalId],
      ['checks', 'external_id', 'a b', externalId],
      ['checks', 'external_id', '..', externalId],
      ['checks', 'external_id', 'x'.repeat(65), externalId],
      ['checks', 'items.0.external_id', '', itemId],
      // GET /v1/{kind}/{id} would be another path, or resolved away: a 404 for a record the account holds
      ['checks', 'id', 'chk_a/b', idRule('chk')],
      ['checks', 'guest_token', 'gt_a/b', idRule('gt')],
      ['locations', 'id', 'loc_a b', idRule('loc')],
      ['claims', 'id', 'clm_a/b', idRule('clm')],
      ['payments', 'id', '..', idRule('pay')],
      ['feedback', 'id', 'fb_a b', idRule('fb')],
      ['events', 'id', 'evt_a/b', idRule('evt')],
      ['deliveries', 'id', 'dlv_a/b', idRule('dlv')],
      ['deliveries', 'endpoint_id', 'we_a/b', idRule('we')],
      ['deliveries', 'event_id', '..', idRule('evt')],
      ['deliveries', 'superseded_by', 'dlv_a b', idRule('dlv')],
      ['webhook_endpoints', 'id', '..', idRule('we')],
      // no request sends it: never replayed
      ['idempotency_keys', 'key', 'a b', IDEMPOTENCY_KEY_RULE],
    ]
    /**
     * The document with `field` of the first record of `collection` set to `value`, and every other value equal
     * to what it held, so that the records still name each other: only the id's form is wrong.
     */
    const renamed = (collection: string, field: string, value: string) => {
      const path = field.split('.')
      const held = path.reduce((at, key) => at?.[key], document.records[collection][0])
      const text = JSON.stringify({...document, name: 'bad'})
      const copy = JSON.parse(text, (_, v) => (held !== undefined && v === held ? value : v))
      path.slice(0, -1).reduce((at, key) => at[key], copy.records[collection][0])[path.at(-1)!] = value
      return copy
    }
    const stored = await sim.stored()
    for (const [collection, field, value, rule] of refused)
      await expectRefusedAt(sim, renamed(collection, field, value), `records.${collection}.0.${field}`, rule, value)
    expect(await sim.stored()).toBe(stored)
    expect((await sim.api('GET', '/v1/sim/snapshots')).body.data.map((s: {name: string}) => s.name)).toEqual(['good'])
  })
})

describe('snapshots: checks past what a push takes', () => {
  it('refuses each with 422 naming the field and the rule a push holds it to, and stores nothing', async () => {
    const {sim, dinner, savedDocument} = await setup()
    await dinner('t1')
    const document = await savedDocument('good')
    const item = document.records.checks[0].items[0]
    /** What a push of `items` (and a table `number`) says at `field`. */
    const pushedRule = (items: unknown[], field: string, number = '12') =>
      pushRule(sim, 't9', {...checkWith([]), table: {number}, items, totals: NO_TOTALS}, field)
    const pushed = {external_id: 'a', name: 'a', quantity: 1, price_cents: 0}
    const many = Array.from({length: 501}, (_, i) => ({...item, external_id: `i${i}`, claimed_quantity: 0}))
    const refused: [change: Record<string, unknown>, field: string, rule: string][] = [
      [
        {items: many},
        'items',
        await pushedRule(
          Array.from({length: 501}, (_, i) => ({...pushed, external_id: `i${i}`})),
          'items',
        ),
      ],
      [
        {items: [{...item, name: 'n'.repeat(201)}]},
        'items.0.name',
        await pushedRule([{...pushed, name: 'n'.repeat(201)}], 'items.0.name'),
      ],
      [{items: [{...item, name: ''}]}, 'items.0.name', await pushedRule([{...pushed, name: ''}], 'items.0.name')],
      [
        {items: [{...item, note: 'n'.repeat(501)}]},
        'items.0.note',
        await pushedRule([{...pushed, note: 'n'.repeat(501)}], 'items.0.note'),
      ],
      [{table: {number: '1'.repeat(33)}}, 'table.number', await pushedRule([], 'table.number', '1'.repeat(33))],
    ]
    const stored = await sim.stored()
    for (const [change, field, rule] of refused) {
      const check = {...document.records.checks[0], ...change}
      const body = {...document, name: 'bad', records: {...document.records, checks: [check]}}
      await expectRefusedAt(sim, body, `records.checks.0.${field}`, rule)
    }
    expect(await sim.stored()).toBe(stored)
  })
})

describe('snapshots: bad input', () => {
  it('answers each route 4xx with the error body and a code naming the field or name, and changes nothing', async () => {
    const {sim, dinner, settled, savedDocument} = await setup()
    // a check with a claim under an Idempotency-Key: the document holds each kind of record
    await dinner('t1')
    // its delivery ended: nothing changes the store during the test but what it sends
    await settled()
    const document = await savedDocument('good')
    const {checks, claims, payments, deliveries, events, idempotency_keys, webhook_endpoints} = document.records
    const [check, claim, payment, delivery, event, key, endpoint] = [
      checks[0],
      claims[0],
      payments[0],
      deliveries[0],
      events[0],
      idempotency_keys[0],
      webhook_endpoints[0],
    ]
    /** The document with `record` as the only one of `collection`: refused, naming `field` of it. */
    const withOnly = (
      collection: string,
      record: object,
      field: string,
    ): [string, string, unknown, number, string, string] => [
      'POST',
      '/v1/sim/snapshots/import',
      {...document, records: {...document.records, [collection]: [record]}},
      422,
      'validation_failed',
      `records.${collection}.0.${field}`,
    ]
    const stored = await sim.stored()
    const refused: [string, string, unknown, number, string, string?][] = [
      ['POST', '/v1/sim/snapshots', {}, 422, 'validation_failed', 'name'],
      ['POST', '/v1/sim/snapshots', {name: 'Bad Name'}, 422, 'validation_failed', 'name'],
      ['POST', '/v1/sim/snapshots', {name: 'x'.repeat(65)}, 422, 'validation_failed', 'name'],
      // the import's own path: a snapshot of that name could be neither read, restored nor deleted
      ['POST', '/v1/sim/snapshots', {name: 'import'}, 422, 'validation_failed', 'name'],
      ['POST', '/v1/sim/snapshots/import', {...document, name: 'import'}, 422, 'validation_failed', 'name'],
      ['GET', '/v1/sim/snapshots/import', undefined, 422, 'validation_failed', 'name'],
      ['DELETE', '/v1/sim/snapshots/import', undefined, 422, 'validation_failed', 'name'],
      ['POST', '/v1/sim/snapshots', {name: 'ok', extra: 1}, 422, 'validation_failed', 'extra'],
      ['POST', '/v1/sim/snapshots', '{"name":', 400, 'invalid_json'],
      ['GET', '/v1/sim/snapshots?starting_after=nope', undefined, 422, 'validation_failed', 'starting_after'],
      ['GET', '/v1/sim/snapshots/missing', undefined, 404, 'not_found'],
      ['GET', '/v1/sim/snapshots/-bad', undefined, 422, 'validation_failed', 'name'],
      ['DELETE', '/v1/sim/snapshots/missing', undefined, 404, 'not_found'],
      ['DELETE', '/v1/sim/snapshots/UPPER', undefined, 422, 'validation_failed', 'name'],
      ['POST', '/v1/sim/snapshots/missing/restore', undefined, 404, 'not_found'],
      ['POST', '/v1/sim/snapshots/a.b/restore', undefined, 422, 'validation_failed', 'name'],
      ['GET', '/v1/sim/snapshots/missing/export', undefined, 404, 'not_found'],
      ['GET', '/v1/sim/snapshots/_x/export', undefined, 422, 'validation_failed', 'name'],
      [
        'POST',
        '/v1/sim/snapshots/import',
        {...document, tablepay_snapshot: 2},
        422,
        'validation_failed',
        'tablepay_snapshot',
      ],
      ['POST', '/v1/sim/snapshots/import', {...document, name: 'No'}, 422, 'validation_failed', 'name'],
      [
        'POST',
        '/v1/sim/snapshots/import',
        {...document, records: {checks: [{}]}},
        422,
        'validation_failed',
        'records.checks.0.id',
      ],
      [
        'POST',
        '/v1/sim/snapshots/import',
        {...document, records: {tables: []}},
        422,
        'validation_failed',
        'records.tables',
      ],
      // parsed, as a body is: an own key, which an object literal would take for the prototype
      [
        'POST',
        '/v1/sim/snapshots/import',
        {...document, records: JSON.parse('{"__proto__": []}')},
        422,
        'validation_failed',
        'records.__proto__',
      ],
      ['POST', '/v1/sim/snapshots/import', [], 422, 'validation_failed', '(body)'],
      // a check the API could not show: imported, every read of it would fail
      ...(['table', 'items', 'totals'] as const).map((field): [string, string, unknown, number, string, string] => [
        'POST',
        '/v1/sim/snapshots/import',
        {...document, records: {...document.records, checks: [{...check, [field]: undefined}]}},
        422,
        'validation_failed',
        `records.checks.0.${field}`,
      ]),
      [
        'POST',
        '/v1/sim/snapshots/import',
        {...document, records: {...document.records, checks: [check, check]}},
        422,
        'validation_failed',
        'records.checks.1.id',
      ],
      // a check's keys, which its reads find it by, twice
      [
        'POST',
        '/v1/sim/snapshots/import',
        {...document, records: {...document.records, checks: [check, {...check, id: 'chk_copy', guest_token: 'copy'}]}},
        422,
        'validation_failed',
        'records.checks.1.external_id',
      ],
      [
        'POST',
        '/v1/sim/snapshots/import',
        {...document, records: {...document.records, checks: [check, {...check, id: 'chk_copy', external_id: 'copy'}]}},
        422,
        'validation_failed',
        'records.checks.1.guest_token',
      ],
      // what the store keeps beside the API's fields: a secret that signs, a rotation's end, chaos's draws
      withOnly('webhook_endpoints', {...endpoint, secret: ''}, 'secret'),
      // a URL every attempt would fail on: none, another scheme, a user or password that does not decode
      withOnly('webhook_endpoints', {...endpoint, url: 'not a url'}, 'url'),
      withOnly('webhook_endpoints', {...endpoint, url: 'ftp://127.0.0.1/hooks'}, 'url'),
      withOnly('webhook_endpoints', {...endpoint, url: 'http://a:%zz@127.0.0.1/hooks'}, 'url'),
      withOnly('webhook_endpoints', {...endpoint, previous_secret: 5}, 'previous_secret'),
      withOnly('webhook_endpoints', {...endpoint, previous_secret_expires_at: 'x'}, 'previous_secret_expires_at'),
      withOnly(
        'webhook_endpoints',
        {...endpoint, chaos: {duplicate: 0.5, reorder_window_s: 0, seed: '', drawn: 0}},
        'chaos.seed',
      ),
      // past the count draws wrap at: drawn on, it would leave exact integers, and its export would not import
      withOnly(
        'webhook_endpoints',
        {...endpoint, chaos: {duplicate: 0.5, reorder_window_s: 0, seed: 1, drawn: DRAWS}},
        'chaos.drawn',
      ),
      // an event's data is the resource its type names; a key's answer is replayed as it is
      withOnly('events', {...event, data: {...event.data, status: null}}, 'data.status'),
      withOnly('idempotency_keys', {...key, body: null}, 'body'),
      withOnly('idempotency_keys', {...key, status: 500}, 'status'),
      // a claim's key answered 201: replayed as 200, it would tell the guest another story
      withOnly('idempotency_keys', {...key, status: 200}, 'status'),
      // under a scope no request has, no replay would find it: a retry would claim again
      withOnly('idempotency_keys', {...key, id: `acct_demo\u0000bogus\u0000${key.key}`}, 'id'),
      // an id longer than PostgreSQL's indexes hold (about 2.7 kB, of text that does not compress)
      [
        'POST',
        '/v1/sim/snapshots/import',
        {...document, records: {...document.records, checks: [{...check, id: `chk_${'x'.repeat(509)}`}]}},
        422,
        'validation_failed',
        'records.checks.0.id',
      ],
      // nested past what PostgreSQL's json reads (a few thousand levels): 33 are refused
      [
        'POST',
        '/v1/sim/snapshots/import',
        {
          ...document,
          records: {...document.records, checks: [{...check, deep: JSON.parse(`${'['.repeat(32)}${']'.repeat(32)}`)}]},
        },
        422,
        'validation_failed',
        'records.checks.0',
      ],
      // a time PostgreSQL cannot read, there being no year 0: the delivery's claim would fail at every try
      [
        'POST',
        '/v1/sim/snapshots/import',
        {
          ...document,
          records: {...document.records, deliveries: [{...delivery, next_attempt_at: '0000-01-01T00:00:00Z'}]},
        },
        422,
        'validation_failed',
        'records.deliveries.0.next_attempt_at',
      ],
      // finer than the millisecond every time is kept to: on PostgreSQL no claim met the due time queued
      withOnly(
        'deliveries',
        {...delivery, status: 'pending', next_attempt_at: '2026-01-01T00:00:00.1234Z'},
        'next_attempt_at',
      ),
      withOnly('checks', {...check, created_at: '2026-01-01T00:00:00.000001Z'}, 'created_at'),
      // an item's counts as a push leaves them: else its claims would not add up
      withOnly('checks', {...check, items: [{...check.items[0], quantity: -1}]}, 'items.0.quantity'),
      withOnly(
        'checks',
        {...check, items: [{...check.items[0], claimed_quantity: check.items[0].quantity + 1}]},
        'items.0.claimed_quantity',
      ),
      // a version from 1 and totals that add up, as a push leaves them; a rating from 1 to 5
      withOnly('checks', {...check, version: -1}, 'version'),
      withOnly(
        'checks',
        {...check, totals: {...check.totals, total_cents: check.totals.total_cents + 1}},
        'totals.total_cents',
      ),
      withOnly('feedback', {...document.records.feedback[0], rating: 9}, 'rating'),
      // a claim as a guest makes it, of an item its check has
      withOnly('claims', {...claim, items: [{external_id: 'a', quantity: -1}]}, 'items.0.quantity'),
      withOnly('claims', {...claim, items: [{external_id: 'a', quantity: 1e308}]}, 'items.0.quantity'),
      withOnly('claims', {...claim, items: []}, 'items'),
      withOnly('claims', {...claim, items: [{external_id: 'nope', quantity: 1}]}, 'items.0.external_id'),
      // an item or a claim line twice, which no push or claim makes: each copy would show the claims' sum
      withOnly('checks', {...check, items: [check.items[0], check.items[0]]}, 'items.1.external_id'),
      withOnly('claims', {...claim, items: [claim.items[0], claim.items[0]]}, 'items.1.external_id'),
      // a payment's refunds as refunding leaves them
      withOnly('payments', {...payment, amount_refunded_cents: 0}, 'amount_refunded_cents'),
      withOnly('payments', {...payment, status: 'succeeded'}, 'status'),
      withOnly(
        'payments',
        {...payment, refunds: [{...payment.refunds[0], amount_cents: 600}], amount_refunded_cents: 600},
        'refunds',
      ),
      withOnly('payments', {...payment, amount_cents: 0}, 'amount_cents'),
      // records that contradict each other: the next payment or refund would count from the check's wrong amount
      withOnly('checks', {...check, amount_paid_cents: 0}, 'amount_paid_cents'),
      withOnly('checks', {...check, items: [{...check.items[0], claimed_quantity: 0}]}, 'items.0.claimed_quantity'),
      withOnly('checks', {...check, totals: {subtotal_cents: 0, tax_cents: 0, total_cents: 0}}, 'totals.total_cents'),
      withOnly('checks', {...check, status: 'voided'}, 'status'),
      // an item worth more than any amount may be: its check could not be pushed back as it is
      withOnly(
        'checks',
        {...check, items: [{...check.items[0], quantity: 1_000_000, price_cents: 1e12}]},
        'items.0.price_cents',
      ),
      // a check at a location of another account (or of none): its table page would show that account's
      withOnly('checks', {...check, location_id: 'loc_other'}, 'location_id'),
      withOnly('payments', {...payment, check_id: 'chk_gone'}, 'check_id'),
      withOnly('payments', {...payment, claim_id: 'clm_gone'}, 'claim_id'),
      withOnly('claims', {...claim, check_id: 'chk_gone'}, 'check_id'),
      withOnly('feedback', {...document.records.feedback[0], check_id: 'chk_gone'}, 'check_id'),
      // a kept answer for a claim the document does not hold: its replay would answer for nothing
      withOnly('idempotency_keys', {...key, body: {...key.body, id: 'clm_other'}}, 'body.id'),
      withOnly(
        'idempotency_keys',
        {...key, body: {...key.body, created_at: '2020-01-01T00:00:00.000Z'}},
        'body.created_at',
      ),
      // an attempt as none is made: numbered from 1, and no shorter than no time at all
      withOnly(
        'deliveries',
        {...delivery, attempts: [{...delivery.attempts[0], duration_ms: -1}]},
        'attempts.0.duration_ms',
      ),
      withOnly('deliveries', {...delivery, attempts: [{...delivery.attempts[0], attempt: 0}]}, 'attempts.0.attempt'),
      // an account no server has: its id is shown as where the snapshot came from
      ['POST', '/v1/sim/snapshots/import', {...document, account: 'acct_\u0000'}, 422, 'validation_failed', 'account'],
      // pending and due never: no queue could order it
      withOnly('deliveries', {...delivery, status: 'pending', next_attempt_at: null}, 'next_attempt_at'),
      withOnly('deliveries', {...delivery, next_attempt_at: delivery.created_at}, 'next_attempt_at'),
      // of no event type: it would go out, where a retry of it is refused
      withOnly('deliveries', {...delivery, event_type: 'bogus.type'}, 'event_type'),
      // of its event under another type: its list and its receiver would say two things
      withOnly(
        'deliveries',
        {...delivery, event_type: delivery.event_type === 'feedback.received' ? 'check.created' : 'feedback.received'},
        'event_type',
      ),
      // kept under another account's key, a restore would answer its requests or take its endpoint's place
      withOnly('idempotency_keys', {...key, id: `acct_other\u0000api\u0000${key.key}`}, 'id'),
      withOnly('idempotency_keys', {...key, id: `acct_demo\u0000api\u0000other-${key.key}`}, 'id'),
      withOnly('idempotency_keys', {...key, id: `acct_demo\u0000${key.key}`}, 'id'),
      withOnly('webhook_endpoints', {...endpoint, id: 'we_mine', stored_as: 'acct_other/we_mine'}, 'stored_as'),
      withOnly('webhook_endpoints', {...endpoint, id: 'we_mine', stored_as: 'acct_demo/we_theirs'}, 'stored_as'),
      // a currency the pages' Intl.NumberFormat throws on, as a seed refuses it
      withOnly('locations', {...document.records.locations[0], currency: 'XXXX'}, 'currency'),
      withOnly('locations', {...document.records.locations[0], timezone: ''}, 'timezone'),
      // where account acct_other keeps its endpoint we_mine: that account's create would take it over
      withOnly('webhook_endpoints', {...endpoint, id: 'acct_other/we_mine'}, 'id'),
    ]
    for (const [method, path, body, status, code, field] of refused) {
      const answer = await sim.api(method, path, {body})
      const what = `${method} ${path} ${JSON.stringify(body)?.slice(0, 60)}`
      expect([answer.status, answer.body.error.code], what).toEqual([status, code])
      expect(answer.body.error).toMatchObject({message: expect.any(String), request_id: expect.any(String)})
      if (field)
        expect(
          answer.body.error.details.map((d: {path: string}) => d.path),
          what,
        ).toContain(field)
    }
    // the import's own path, read as a name: the answer says why no snapshot has it
    for (const method of ['GET', 'DELETE'])
      expect((await sim.api(method, '/v1/sim/snapshots/import')).body.error.message).toContain('and not import')
    // a read key reads, and writes nothing
    expect((await sim.api('GET', '/v1/sim/snapshots/good', {key: READ_KEY})).status).toBe(200)
    const forbidden = await sim.api('POST', '/v1/sim/snapshots/good/restore', {key: READ_KEY})
    expect([forbidden.status, forbidden.body.error.code]).toEqual([403, 'insufficient_scope'])
    expect(await sim.stored()).toBe(stored)
  })

  it('names a record held twice in a collection whose records have other problems too', async () => {
    const {sim, dinner, savedDocument} = await setup()
    await dinner('t1')
    const document = await savedDocument('good')
    const [check] = document.records.checks
    const checks = [check, {...check, version: 0}]
    const refused = await sim.api('POST', '/v1/sim/snapshots/import', {body: {...document, records: {checks}}})
    expect(refused.body.error.details.map((d: {path: string}) => d.path)).toEqual([
      'records.checks.1.version',
      'records.checks.1.id',
      'records.checks.1.external_id',
      'records.checks.1.guest_token',
    ])
    // an id that is none is named for that alone
    const noIds = await sim.api('POST', '/v1/sim/snapshots/import', {
      body: {...document, records: {checks: [{id: null}, {id: null}]}},
    })
    expect(noIds.body.error.details.map((d: {path: string}) => d.path)).toEqual([
      'records.checks.0.id',
      'records.checks.1.id',
    ])
  })

  it('refuses an import announced far past its limit at once, without reading the body', async () => {
    const {sim} = await setup()
    // 64 MiB past the import's 256 MiB: within 16 times the limit, so once read and dropped, never sent here
    const headers = {
      authorization: `Bearer ${WRITE_KEY}`,
      'content-type': 'application/json',
      'content-length': String(320 * 1024 * 1024),
    }
    const answer = await rawRequest(sim.url, 'POST', '/v1/sim/snapshots/import', {headers})
    expect([answer.status, answer.body.error.code, answer.headers.connection]).toEqual([
      413,
      'payload_too_large',
      'close',
    ])
  })
})
