import {request} from 'node:http'
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import {checkWith} from '../helpers/checks.js'
import {startReceiver} from '../helpers/receiver.js'
import {type Answer, OTHER_KEY, startTestServer, type TestServer, WRITE_KEY} from '../helpers/simulator.js'

let sim: TestServer
beforeAll(async () => {
  sim = await startTestServer()
})
afterAll(() => sim.close())
beforeEach(async () => {
  expect((await sim.api('POST', '/v1/sim/reset')).status).toBe(200)
})

type Ev = {id: string; type: string; data: any}
const events = async () => (await sim.api('GET', '/v1/events?limit=100')).body.data as Ev[]
const ofType = async (type: string) => (await events()).filter((e) => e.type === type)
const post = (path: string, body: unknown, headers?: Record<string, string>) => sim.api('POST', path, {body, headers})
const pay = (checkId: string, body: unknown, headers?: Record<string, string>) =>
  post(`/v1/sim/checks/${checkId}/payments`, body, headers)
const getCheck = async (id: string) => (await sim.api('GET', `/v1/checks/${id}`)).body

function expectError(answer: Answer, status: number, code: string) {
  expect(answer.status).toBe(status)
  expect(answer.body.error).toMatchObject({code, request_id: answer.headers.get('x-request-id')})
}

/** Pushes a check due 1,100: steak 1 x 1,000 plus 100 tax. */
async function openCheck(externalId = 'g1', lines: Parameters<typeof checkWith>[0] = [['steak', 1, 1000]]) {
  const answer = await sim.api('PUT', `/v1/checks/external/${externalId}`, {body: checkWith(lines)})
  expect(answer.status).toBe(201)
  return answer.body as {id: string; totals: {total_cents: number}}
}

describe('payments', () => {
  it('paying more than is due is 422 amount_exceeds_balance and changes nothing', async () => {
    const check = await openCheck()
    const before = await sim.api('GET', `/v1/checks/${check.id}`)
    expectError(await pay(check.id, {amount_cents: 1101}), 422, 'amount_exceeds_balance')
    expect((await sim.api('GET', `/v1/checks/${check.id}`)).text).toBe(before.text)
    expect((await events()).map((e) => e.type)).toEqual(['check.created'])
  })

  it('partial payments add up; the check becomes paid and check.fully_paid fires exactly once', async () => {
    const check = await openCheck()
    const first = await pay(check.id, {amount_cents: 400})
    expect(first.status).toBe(201)
    expect(first.body).toMatchObject({
      object: 'payment',
      check_id: check.id,
      amount_cents: 400,
      tip_cents: 0,
      status: 'succeeded',
      claim_id: null,
    })
    expect(await getCheck(check.id)).toMatchObject({
      amount_paid_cents: 400,
      amount_due_cents: 700,
      payment_status: 'partially_paid',
    })
    expect((await pay(check.id, {amount_cents: 700})).status).toBe(201)
    expect(await getCheck(check.id)).toMatchObject({
      amount_paid_cents: 1100,
      amount_due_cents: 0,
      payment_status: 'paid',
    })
    expectError(await pay(check.id, {amount_cents: 1}), 422, 'amount_exceeds_balance')
    const fullyPaid = await ofType('check.fully_paid')
    expect(fullyPaid).toHaveLength(1)
    expect(fullyPaid[0]!.data).toMatchObject({id: check.id, payment_status: 'paid'})
    expect(
      (await sim.api('GET', `/v1/checks/${check.id}/payments`)).body.data.map(
        (p: {amount_cents: number}) => p.amount_cents,
      ),
    ).toEqual([700, 400])
  })

  it('a refund brings the check back to partially_paid; a payment reaching the total fires check.fully_paid again', async () => {
    const check = await openCheck()
    const payment = (await pay(check.id, {amount_cents: 1100, tip_cents: 150})).body
    const refunded = await post(`/v1/sim/payments/${payment.id}/refund`, {amount_cents: 300})
    expect(refunded.status).toBe(200)
    expect(refunded.body).toMatchObject({id: payment.id, amount_refunded_cents: 300, status: 'partially_refunded'})
    expect(await getCheck(check.id)).toMatchObject({
      amount_paid_cents: 800,
      amount_due_cents: 300,
      payment_status: 'partially_paid',
    })
    expect(await ofType('check.fully_paid')).toHaveLength(1)
    expect((await pay(check.id, {amount_cents: 300})).status).toBe(201)
    expect(await ofType('check.fully_paid')).toHaveLength(2)
    const rest = await post(`/v1/sim/payments/${payment.id}/refund`, {})
    expect(rest.body).toMatchObject({amount_refunded_cents: 1250, status: 'refunded'})
    expectError(await post(`/v1/sim/payments/${payment.id}/refund`, {}), 422, 'amount_exceeds_balance')
  })

  it('tips do not count toward the total or the amount paid', async () => {
    const check = await openCheck()
    expect((await pay(check.id, {amount_cents: 500, tip_cents: 5000})).status).toBe(201)
    expect(await getCheck(check.id)).toMatchObject({
      totals: {total_cents: 1100},
      amount_paid_cents: 500,
      amount_due_cents: 600,
    })
  })

  it('a closed check cannot be claimed, paid, refunded or rated (409 check_not_open), and nothing changes', async () => {
    const check = await openCheck()
    const payment = (await pay(check.id, {amount_cents: 1000})).body
    await sim.api('PUT', '/v1/checks/external/g1', {body: checkWith([['steak', 1, 1000]], {status: 'closed'})})
    const before = [(await sim.api('GET', `/v1/checks/${check.id}`)).text, (await events()).length]
    expectError(
      await post(`/v1/sim/checks/${check.id}/claims`, {items: [{external_id: 'steak', quantity: 1}]}),
      409,
      'check_not_open',
    )
    expectError(await pay(check.id, {amount_cents: 1}), 409, 'check_not_open')
    expectError(await post(`/v1/sim/payments/${payment.id}/refund`, {amount_cents: 100}), 409, 'check_not_open')
    expectError(await post(`/v1/sim/checks/${check.id}/feedback`, {rating: 5}), 409, 'check_not_open')
    expect([(await sim.api('GET', `/v1/checks/${check.id}`)).text, (await events()).length]).toEqual(before)
    expect((await sim.api('GET', `/v1/payments/${payment.id}`)).body.amount_refunded_cents).toBe(0)
    expect((await sim.api('GET', `/v1/checks/${check.id}/feedback`)).body.data).toEqual([])

    // open again, the bill is refunded and rated
    const reopened = await sim.api('PUT', '/v1/checks/external/g1', {
      body: checkWith([['steak', 1, 1000]], {status: 'open'}),
    })
    expect(reopened.status).toBe(200)
    expect((await post(`/v1/sim/payments/${payment.id}/refund`, {amount_cents: 100})).status).toBe(200)
    expect((await post(`/v1/sim/checks/${check.id}/feedback`, {rating: 5})).status).toBe(201)
  })

  it('simulate "decline" answers 402 payment_declined and changes nothing', async () => {
    const check = await openCheck()
    const before = await sim.api('GET', `/v1/checks/${check.id}`)
    expectError(await pay(check.id, {amount_cents: 500, simulate: 'decline'}), 402, 'payment_declined')
    expect((await sim.api('GET', `/v1/checks/${check.id}`)).text).toBe(before.text)
    expect((await sim.api('GET', `/v1/checks/${check.id}/payments`)).body.data).toEqual([])
    expect((await events()).map((e) => e.type)).toEqual(['check.created'])
  })

  it('claim_id must be a claim of this check', async () => {
    const check = await openCheck()
    const other = await openCheck('g2')
    const claim = (await post(`/v1/sim/checks/${other.id}/claims`, {items: [{external_id: 'steak', quantity: 1}]})).body
    const answer = await pay(check.id, {amount_cents: 100, claim_id: claim.id})
    expectError(answer, 422, 'validation_failed')
    expect(answer.body.error.details).toEqual([
      {path: 'claim_id', message: expect.stringContaining(`no claim ${claim.id} on check ${check.id}`)},
    ])
    expect((await pay(other.id, {amount_cents: 100, claim_id: claim.id})).body.claim_id).toBe(claim.id)
  })

  it('bad bodies are 422 validation_failed', async () => {
    const check = await openCheck()
    for (const body of [
      {},
      {amount_cents: 0},
      {amount_cents: 1.5},
      {amount_cents: 100, tip_cents: -1},
      {amount_cents: 100, simulate: 'fraud'},
      {amount_cents: 100, extra: 1},
    ]) {
      expectError(await pay(check.id, body), 422, 'validation_failed')
    }
    for (const body of [{}, {rating: 0}, {rating: 6}, {rating: 4.5}, {rating: 3, comment: 'x'.repeat(2001)}]) {
      expectError(await post(`/v1/sim/checks/${check.id}/feedback`, body), 422, 'validation_failed')
    }
    expect(await getCheck(check.id)).toMatchObject({amount_paid_cents: 0})
  })
})

/**
 * POSTs that the server has all started handling before any body arrives:
 * each asks `Expect: 100-continue`, and the bodies go out only once every
 * request got its 100 (the server sends it as it starts the handler). This
 * forces the interleaving a race needs instead of hoping for it.
 */
async function interleaved(
  requests: {path: string; body: unknown; headers?: Record<string, string>}[],
): Promise<Answer[]> {
  const started = requests.map(({path, body, headers}) => {
    const text = JSON.stringify(body)
    const req = request(`${sim.url}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${WRITE_KEY}`,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(text),
        expect: '100-continue',
        ...headers,
      },
    })
    const answer = new Promise<Answer>((resolve, reject) => {
      req.on('error', reject)
      req.on('response', async (res) => {
        const chunks: Buffer[] = []
        for await (const chunk of res) chunks.push(chunk as Buffer)
        const raw = Buffer.concat(chunks).toString()
        resolve({
          status: res.statusCode!,
          headers: new Headers(res.headers as Record<string, string>),
          text: raw,
          body: JSON.parse(raw),
        })
      })
    })
    const ready = new Promise<void>((resolve) => req.once('continue', resolve))
    req.flushHeaders()
    return {req, text, ready, answer}
  })
  await Promise.all(started.map((s) => s.ready))
  for (const s of started) s.req.end(s.text)
  return Promise.all(started.map((s) => s.answer))
}

describe('concurrency', () => {
  it('two concurrent claims of the last unit: exactly one 201, one 409 item_unavailable; the push then protects it', async () => {
    const check = await openCheck('last', [
      ['steak', 1, 1000],
      ['wine', 1, 500],
    ])
    const claimOne = {path: `/v1/sim/checks/${check.id}/claims`, body: {items: [{external_id: 'steak', quantity: 1}]}}
    const answers = await interleaved([claimOne, claimOne])
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409])
    expectError(
      answers.find((a) => a.status === 409)!,
      409,
      'item_unavailable',
    )
    expect((await getCheck(check.id)).items[0].claimed_quantity).toBe(1)
    const push = await sim.api('PUT', '/v1/checks/external/last', {body: checkWith([['wine', 1, 500]])})
    expectError(push, 409, 'conflict_with_paid_items')
    expect(push.body.error.details).toEqual([expect.objectContaining({external_id: 'steak'})])
  })

  it('ten concurrent payments of 200 on 1,100 due: five succeed, nothing is overpaid', async () => {
    const check = await openCheck()
    const answers = await interleaved(
      Array.from({length: 10}, () => ({path: `/v1/sim/checks/${check.id}/payments`, body: {amount_cents: 200}})),
    )
    expect(answers.filter((a) => a.status === 201)).toHaveLength(5)
    for (const refused of answers.filter((a) => a.status !== 201)) expectError(refused, 422, 'amount_exceeds_balance')
    expect(await getCheck(check.id)).toMatchObject({amount_paid_cents: 1000, amount_due_cents: 100})
  })
})

describe('pushes and what guests paid', () => {
  it('a push lowering the total below what was paid is 409 conflict_with_paid_items and changes nothing', async () => {
    const check = await openCheck()
    await pay(check.id, {amount_cents: 800})
    const before = await sim.api('GET', `/v1/checks/${check.id}`)
    const answer = await sim.api('PUT', '/v1/checks/external/g1', {body: checkWith([['steak', 1, 700]])})
    expectError(answer, 409, 'conflict_with_paid_items')
    expect(answer.body.error.details).toEqual([
      {path: 'totals.total_cents', message: 'guests have paid 800; the total cannot go below it'},
    ])
    expectError(
      await sim.api('PUT', '/v1/checks/external/g1', {body: checkWith([['steak', 1, 1000]], {status: 'voided'})}),
      409,
      'conflict_with_paid_items',
    )
    expect((await sim.api('GET', `/v1/checks/${check.id}`)).text).toBe(before.text)
  })

  it('a push lowering the total to what was paid makes the check paid and fires check.fully_paid', async () => {
    const check = await openCheck()
    await pay(check.id, {amount_cents: 880})
    const answer = await sim.api('PUT', '/v1/checks/external/g1', {body: checkWith([['steak', 1, 800]])})
    expect(answer.body).toMatchObject({amount_paid_cents: 880, payment_status: 'paid'})
    const [fullyPaid] = await ofType('check.fully_paid')
    expect(JSON.stringify(fullyPaid!.data)).toBe(answer.text)
  })
})

describe('Idempotency-Key', () => {
  it('same key, same body twice: one payment, the same answer, one event', async () => {
    const check = await openCheck()
    const key = {'idempotency-key': 'pay-g1-1'}
    const first = await pay(check.id, {amount_cents: 500, tip_cents: 50}, key)
    const again = await pay(check.id, {tip_cents: 50, amount_cents: 500}, key)
    expect(again.status).toBe(first.status)
    expect(again.text).toBe(first.text)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(first.headers.get('idempotent-replayed')).toBeNull()
    expect((await sim.api('GET', `/v1/checks/${check.id}/payments`)).body.data).toHaveLength(1)
    expect(await ofType('payment.succeeded')).toHaveLength(1)
    expect(await getCheck(check.id)).toMatchObject({amount_paid_cents: 500})
  })

  it('five concurrent requests with one key act once', async () => {
    const check = await openCheck()
    const once = {
      path: `/v1/sim/checks/${check.id}/feedback`,
      body: {rating: 4},
      headers: {'idempotency-key': 'fb-once'},
    }
    const answers = await interleaved(Array.from({length: 5}, () => once))
    expect(new Set(answers.map((a) => `${a.status} ${a.text}`)).size).toBe(1)
    expect((await sim.api('GET', `/v1/checks/${check.id}/feedback`)).body.data).toHaveLength(1)
  })

  it('twenty concurrent copies of a keyed payment of the whole amount due: one 201, nineteen replays of it', async () => {
    const check = await openCheck()
    const copy = {
      path: `/v1/sim/checks/${check.id}/payments`,
      body: {amount_cents: check.totals.total_cents},
      headers: {'idempotency-key': 'pay-all-once'},
    }
    const answers = await interleaved(Array.from({length: 20}, () => copy))
    const first = answers.find((answer) => answer.headers.get('idempotent-replayed') === null)!
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({length: 20}, () => 201))
    expect(answers.filter((answer) => answer.headers.get('idempotent-replayed') === 'true')).toHaveLength(19)
    expect(new Set(answers.map((answer) => answer.text))).toEqual(new Set([first.text]))
    expect(await ofType('payment.succeeded')).toHaveLength(1)
    expect(await getCheck(check.id)).toMatchObject({amount_paid_cents: check.totals.total_cents})
  })

  it('twenty concurrent copies of a keyed claim of the last unit: one 201, nineteen replays of it', async () => {
    const check = await openCheck()
    const copy = {
      path: `/v1/sim/checks/${check.id}/claims`,
      body: {items: [{external_id: 'steak', quantity: 1}]},
      headers: {'idempotency-key': 'claim-once'},
    }
    const answers = await interleaved(Array.from({length: 20}, () => copy))
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({length: 20}, () => 201))
    expect(answers.filter((answer) => answer.headers.get('idempotent-replayed') === 'true')).toHaveLength(19)
    expect(new Set(answers.map((answer) => answer.text)).size).toBe(1)
    expect(await ofType('claim.created')).toHaveLength(1)
  })

  it('same key with another body or path is 422 idempotency_key_reused and changes nothing', async () => {
    const check = await openCheck()
    const key = {'idempotency-key': 'k-reused'}
    expect((await pay(check.id, {amount_cents: 500}, key)).status).toBe(201)
    expectError(await pay(check.id, {amount_cents: 501}, key), 422, 'idempotency_key_reused')
    expectError(await post(`/v1/sim/checks/${check.id}/feedback`, {rating: 3}, key), 422, 'idempotency_key_reused')
    expect(await getCheck(check.id)).toMatchObject({amount_paid_cents: 500})
  })

  it('the same route spelled another way (a trailing slash, an encoded letter) is the same request', async () => {
    const check = await openCheck()
    const key = {'idempotency-key': 'k-spelled'}
    const first = await pay(check.id, {amount_cents: 500}, key)
    for (const path of [`/v1/sim/checks/${check.id}/payments/`, `/%761/sim/checks/${check.id}/payments`]) {
      const again = await post(path, {amount_cents: 500}, key)
      expect([again.status, again.text, again.headers.get('idempotent-replayed')], path).toEqual([
        201,
        first.text,
        'true',
      ])
    }
    expect(await getCheck(check.id)).toMatchObject({amount_paid_cents: 500})
  })

  it('keys are per account, a refusal is not stored, and a malformed key is 422', async () => {
    const check = await openCheck()
    const key = {'idempotency-key': 'shared'}
    expectError(await pay(check.id, {amount_cents: 5000}, key), 422, 'amount_exceeds_balance')
    expect((await pay(check.id, {amount_cents: 100}, key)).status).toBe(201)
    const theirs = await sim.api('PUT', '/v1/checks/external/o1', {
      key: OTHER_KEY,
      body: {...checkWith([['a', 1, 100]]), location_id: 'loc_other_a'},
    })
    const other = await sim.api('POST', `/v1/sim/checks/${theirs.body.id}/payments`, {
      key: OTHER_KEY,
      body: {amount_cents: 50},
      headers: key,
    })
    expect(other.status).toBe(201)
    expect(other.headers.get('idempotent-replayed')).toBeNull()
    expectError(await pay(check.id, {amount_cents: 1}, {'idempotency-key': 'has space'}), 422, 'validation_failed')
    await sim.api('POST', '/v1/sim/reset', {key: OTHER_KEY})
  })

  it('a replay after a restart still gets the stored answer', async () => {
    const check = await openCheck()
    const key = {'idempotency-key': 'survives'}
    const first = await pay(check.id, {amount_cents: 300}, key)
    await sim.stop()
    await sim.restart()
    const again = await pay(check.id, {amount_cents: 300}, key)
    expect(again.text).toBe(first.text)
    expect(await getCheck(check.id)).toMatchObject({amount_paid_cents: 300})
  })
})

describe('reads, events and reset', () => {
  it("each event's data equals the matching GET", async () => {
    const check = await openCheck()
    const claim = await post(`/v1/sim/checks/${check.id}/claims`, {items: [{external_id: 'steak', quantity: 1}]})
    const payment = await pay(check.id, {amount_cents: 1100, tip_cents: 100, claim_id: claim.body.id})
    const refunded = await post(`/v1/sim/payments/${payment.body.id}/refund`, {amount_cents: 200})
    const feedback = await post(`/v1/sim/checks/${check.id}/feedback`, {rating: 5, comment: 'Perfect steak'})
    const all = await events()
    const dataOf = (type: string) => JSON.stringify(all.find((e) => e.type === type)!.data)
    expect(dataOf('claim.created')).toBe((await sim.api('GET', `/v1/claims/${claim.body.id}`)).text)
    expect(dataOf('payment.refunded')).toBe((await sim.api('GET', `/v1/payments/${payment.body.id}`)).text)
    expect(JSON.stringify(all.filter((e) => e.type === 'payment.succeeded')[0]!.data)).toBe(payment.text)
    expect(dataOf('feedback.received')).toBe((await sim.api('GET', `/v1/feedback/${feedback.body.id}`)).text)
    expect(dataOf('check.updated')).toBe((await sim.api('GET', `/v1/checks/${check.id}`)).text)
    expect(refunded.text).toBe((await sim.api('GET', `/v1/payments/${payment.body.id}`)).text)
    expect((await sim.api('GET', `/v1/checks/${check.id}/feedback`)).body.data).toEqual([feedback.body])
    expect(all.map((e) => e.type)).toEqual([
      'feedback.received',
      'check.updated',
      'payment.refunded',
      'check.fully_paid',
      'check.updated',
      'payment.succeeded',
      'check.updated',
      'claim.created',
      'check.created',
    ])
  })

  it('another account sees none of it', async () => {
    const check = await openCheck()
    const payment = (await pay(check.id, {amount_cents: 100})).body
    const feedback = (await post(`/v1/sim/checks/${check.id}/feedback`, {rating: 2})).body
    for (const path of [
      `/v1/payments/${payment.id}`,
      `/v1/feedback/${feedback.id}`,
      `/v1/checks/${check.id}/payments`,
      `/v1/checks/${check.id}/feedback`,
    ]) {
      expectError(await sim.api('GET', path, {key: OTHER_KEY}), 404, 'not_found')
    }
    expectError(
      await sim.api('POST', `/v1/sim/payments/${payment.id}/refund`, {key: OTHER_KEY, body: {}}),
      404,
      'not_found',
    )
  })

  it('reset clears payments, feedback and idempotency keys', async () => {
    const check = await openCheck()
    const payment = (await pay(check.id, {amount_cents: 100}, {'idempotency-key': 'before-reset'})).body
    const feedback = (await post(`/v1/sim/checks/${check.id}/feedback`, {rating: 2})).body
    const reset = await sim.api('POST', '/v1/sim/reset')
    expect(reset.body.deleted).toMatchObject({payments: 1, feedback: 1, idempotency_keys: 1})
    expectError(await sim.api('GET', `/v1/payments/${payment.id}`), 404, 'not_found')
    expectError(await sim.api('GET', `/v1/feedback/${feedback.id}`), 404, 'not_found')
    const fresh = await openCheck()
    const again = await pay(fresh.id, {amount_cents: 100}, {'idempotency-key': 'before-reset'})
    expect(again.status).toBe(201)
    expect(again.body.id).not.toBe(payment.id)
  })
})

describe('webhooks', () => {
  it('a receiver subscribed to the guest event types receives each of them', async () => {
    const receiver = await startReceiver()
    try {
      const types = ['claim.created', 'payment.succeeded', 'payment.refunded', 'check.fully_paid', 'feedback.received']
      const endpoint = await sim.api('POST', '/v1/webhook-endpoints', {body: {url: receiver.url, event_types: types}})
      expect(endpoint.status).toBe(201)
      receiver.verifyWith(endpoint.body.secret)
      const check = await openCheck()
      await post(`/v1/sim/checks/${check.id}/claims`, {items: [{external_id: 'steak', quantity: 1}]})
      const payment = (await pay(check.id, {amount_cents: 1100})).body
      await post(`/v1/sim/payments/${payment.id}/refund`, {amount_cents: 100})
      await post(`/v1/sim/checks/${check.id}/feedback`, {rating: 5})
      await receiver.waitFor(5)
      const received = receiver.received.map((r) => JSON.parse(r.body) as Ev)
      expect(received.map((e) => e.type).sort()).toEqual([...types].sort())
      const stored = await events()
      for (const event of received) expect(event).toEqual(stored.find((e) => e.id === event.id))
    } finally {
      await receiver.close()
      await sim.api(
        'DELETE',
        `/v1/webhook-endpoints/${(await sim.api('GET', '/v1/webhook-endpoints')).body.data[0].id}`,
      )
    }
  })
})
