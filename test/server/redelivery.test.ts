import {afterEach, describe, expect, it} from 'vitest'
import {checkWith} from '../helpers/checks.js'
import {startReceiver} from '../helpers/receiver.js'
import {startTestServer, type TestServer} from '../helpers/simulator.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

/** A receiver that answers 500 while `failing` says so for the body, 200 otherwise. */
async function setup(serve: Parameters<typeof startTestServer>[0] = {}) {
  let failing = (_body: string) => false
  const receiver = await startReceiver(({body}) => (failing(body) ? 500 : 200))
  const sim: TestServer = await startTestServer(serve)
  cleanup.push(
    () => receiver.close(),
    () => sim.close(),
  )
  const register = async (event_types: string[] = ['check.created']) => {
    const answer = await sim.api('POST', '/v1/webhook-endpoints', {body: {url: receiver.url, event_types}})
    receiver.verifyWith(answer.body.secret)
    return answer.body as {id: string; secret: string}
  }
  const push = async (id: string, price = 100) =>
    (await sim.api('PUT', `/v1/checks/external/${id}`, {body: checkWith([['a', 1, price]])})).body
  const eventOf = async (checkId: string, type = 'check.created') =>
    (await sim.api('GET', `/v1/events?type=${type}&limit=100`)).body.data.find(
      (e: {data: {id: string}}) => e.data.id === checkId,
    )
  return {receiver, sim, register, push, eventOf, failWhen: (rule: (body: string) => boolean) => (failing = rule)}
}

describe('PATCH /webhook-endpoints/{id}', () => {
  it('changes the fields given under the rules of creation, and a disabled endpoint stays disabled', async () => {
    const {sim, register, receiver, push, failWhen} = await setup({serve: {retrySchedule: [], disableAfter: 1}})
    const endpoint = await register()
    const patched = await sim.api('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, {
      body: {event_types: ['check.created', 'check.closed'], description: 'till 2'},
    })
    expect(patched.status).toBe(200)
    expect(patched.body).toMatchObject({event_types: ['check.created', 'check.closed'], description: 'till 2'})
    expect(patched.body).not.toHaveProperty('secret')
    const refused = await sim.api('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, {
      body: {url: 'http://example.com/h'},
    })
    expect(refused.status).toBe(422)
    expect((await sim.api('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, {body: {status: 'enabled'}})).status).toBe(
      422,
    )

    failWhen(() => true)
    await push('p1')
    await receiver.waitFor(1)
    await expect
      .poll(async () => (await sim.api('GET', `/v1/webhook-endpoints/${endpoint.id}`)).body.status)
      .toBe('disabled')
    const later = await sim.api('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, {body: {description: 'again'}})
    expect(later.body).toMatchObject({status: 'disabled', description: 'again'})
  })

  it('writes nothing for an update that changes nothing: the endpoint and its updated_at stay as they were', async () => {
    const {sim, register} = await setup()
    const endpoint = await register(['check.created', 'check.closed'])
    const before = await sim.api('GET', `/v1/webhook-endpoints/${endpoint.id}`)
    const stored = await sim.stored()
    for (const body of [{}, {event_types: ['check.created', 'check.closed', 'check.closed'], url: before.body.url}]) {
      const patched = await sim.api('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, {body})
      expect([patched.status, patched.body]).toEqual([200, before.body])
    }
    expect(await sim.stored()).toBe(stored)
  })
})

describe('event_types of an endpoint', () => {
  it('drops duplicates, however many, on creation and on update', async () => {
    const {sim, receiver} = await setup()
    const all = ['check.created', 'check.updated', 'check.closed', 'check.fully_paid', 'payment.succeeded']
    const listed = [...all, 'payment.refunded', 'claim.created', 'feedback.received', ...all]
    const created = await sim.api('POST', '/v1/webhook-endpoints', {body: {url: receiver.url, event_types: listed}})
    expect([created.status, created.body.event_types]).toEqual([201, [...new Set(listed)]])
    const patched = await sim.api('PATCH', `/v1/webhook-endpoints/${created.body.id}`, {
      body: {event_types: Array.from({length: 9}, () => 'check.closed')},
    })
    expect([patched.status, patched.body.event_types]).toEqual([200, ['check.closed']])
  })
})

describe('POST /events/{id}/resend', () => {
  it('makes exactly one new delivery with the same body bytes and event id, attempted now: 201', async () => {
    const {sim, register, receiver, push, eventOf} = await setup()
    const endpoint = await register()
    const check = await push('r1')
    await receiver.waitFor(1)
    const event = await eventOf(check.id)
    const before = (await sim.api('GET', `/v1/deliveries?endpoint_id=${endpoint.id}`)).body.data

    const resent = await sim.api('POST', `/v1/events/${event.id}/resend`, {body: {endpoint_id: endpoint.id}})
    expect(resent.status).toBe(201)
    expect(resent.body).toMatchObject({object: 'delivery', event_id: event.id, endpoint_id: endpoint.id})
    expect(resent.body.id).not.toBe(before[0].id)
    await receiver.waitFor(2)
    const [first, second] = receiver.received
    expect(second!.body).toBe(first!.body)
    expect(second!.headers['x-tablepay-event-id']).toBe(event.id)
    const after = (await sim.api('GET', `/v1/deliveries?endpoint_id=${endpoint.id}`)).body.data
    expect(after).toHaveLength(before.length + 1)
    expect(receiver.received).toHaveLength(2)
  })

  it('refuses an endpoint that does not take the type (422 event_type_not_subscribed), a disabled or unknown one', async () => {
    const {sim, register, receiver, push, eventOf, failWhen} = await setup({
      serve: {retrySchedule: [], disableAfter: 1},
    })
    const payments = await register(['payment.succeeded'])
    const check = await push('r2')
    const event = await eventOf(check.id)
    const wrongType = await sim.api('POST', `/v1/events/${event.id}/resend`, {body: {endpoint_id: payments.id}})
    expect(wrongType.status).toBe(422)
    expect(wrongType.body.error.code).toBe('event_type_not_subscribed')
    const unknown = await sim.api('POST', `/v1/events/${event.id}/resend`, {body: {endpoint_id: 'we_nope'}})
    expect([unknown.status, unknown.body.error.details[0].path]).toEqual([422, 'endpoint_id'])
    const other = await sim.api('POST', `/v1/events/${event.id}/resend`, {
      body: {endpoint_id: payments.id},
      key: 'tp_test_other_write',
    })
    expect(other.status).toBe(404)

    const doomed = await register()
    failWhen(() => true)
    await push('r3')
    await receiver.waitFor(1)
    await expect
      .poll(async () => (await sim.api('GET', `/v1/webhook-endpoints/${doomed.id}`)).body.status)
      .toBe('disabled')
    const disabled = await sim.api('POST', `/v1/events/${event.id}/resend`, {body: {endpoint_id: doomed.id}})
    expect([disabled.status, disabled.body.error.code]).toEqual([409, 'endpoint_disabled'])
    // a disabled endpoint stays so: the answer says to register the receiver again, as recover's does
    expect(disabled.body.error.message).toContain('register the receiver again (POST /v1/webhook-endpoints)')
    const recover = await sim.api('POST', `/v1/webhook-endpoints/${doomed.id}/recover`, {
      body: {since: '2020-01-01T00:00:00Z'},
    })
    expect([recover.status, recover.body.error.message]).toEqual([409, disabled.body.error.message])
  })
})

describe('POST /deliveries/{id}/retry', () => {
  it('answers 409 endpoint_disabled once the endpoint is deleted, instead of a pending that is never sent', async () => {
    const {sim, register, receiver, push} = await setup()
    const endpoint = await register()
    await push('r9')
    await receiver.waitFor(1)
    const [delivery] = (await sim.api('GET', `/v1/deliveries?endpoint_id=${endpoint.id}`)).body.data
    expect((await sim.api('POST', `/v1/deliveries/${delivery.id}/retry`)).status).toBe(200)
    await receiver.waitFor(2)
    // the receiver has the attempt before the server records its answer (on PostgreSQL, a round trip later)
    await expect.poll(async () => (await sim.api('GET', `/v1/deliveries/${delivery.id}`)).body.status).toBe('succeeded')
    await sim.api('DELETE', `/v1/webhook-endpoints/${endpoint.id}`)
    const refused = await sim.api('POST', `/v1/deliveries/${delivery.id}/retry`)
    expect([refused.status, refused.body.error.code]).toEqual([409, 'endpoint_disabled'])
    expect((await sim.api('GET', `/v1/deliveries/${delivery.id}`)).body.status).toBe('succeeded')
  })
})

/**
 * A check pushed to an endpoint whose first attempt is out: the receiver holds it until `answerFirst()`,
 * then answers `status`; every later attempt is answered 200 at once.
 */
async function withFirstAttemptOut(status: number, externalId: string) {
  let answerFirst!: () => void
  const first = new Promise<number>((resolve) => (answerFirst = () => resolve(status)))
  const receiver = await startReceiver(() => (receiver.received.length === 1 ? first : 200))
  const sim = await startTestServer()
  cleanup.push(
    () => receiver.close(),
    () => sim.close(),
  )
  const {body: endpoint} = await sim.api('POST', '/v1/webhook-endpoints', {
    body: {url: receiver.url, event_types: ['check.created']},
  })
  receiver.verifyWith(endpoint.secret)
  await sim.api('PUT', `/v1/checks/external/${externalId}`, {body: checkWith([['a', 1, 100]])})
  await receiver.waitFor(1)
  const [delivery] = (await sim.api('GET', `/v1/deliveries?endpoint_id=${endpoint.id}`)).body.data
  return {sim, receiver, endpoint, delivery, answerFirst}
}

describe('a retry asked while an attempt is out', () => {
  it('is made once that attempt has ended, whatever it came to', async () => {
    // the first attempt waits for the test; the retry's is answered at once
    const {sim, receiver, delivery, answerFirst: release} = await withFirstAttemptOut(200, 'out-1')
    const retried = await sim.api('POST', `/v1/deliveries/${delivery.id}/retry`)
    expect([retried.status, retried.body.status]).toEqual([200, 'pending'])
    release()
    await receiver.waitFor(2)
    await expect.poll(async () => (await sim.api('GET', `/v1/deliveries/${delivery.id}`)).body.attempts?.length).toBe(2)
    expect((await sim.api('GET', `/v1/deliveries/${delivery.id}`)).body.status).toBe('succeeded')
  })
})

/** The instant `iso` names, written at `minutes` east of UTC as RFC 3339 allows: `…T05:30:00.001+05:30`. */
function atOffset(iso: string, minutes: number): string {
  const wall = new Date(Date.parse(iso) + minutes * 60_000).toISOString().slice(0, -1)
  const hhmm = new Date(Math.abs(minutes) * 60_000).toISOString().slice(11, 16)
  return `${wall}${minutes < 0 ? '-' : '+'}${hhmm}`
}

describe('POST /webhook-endpoints/{id}/recover', () => {
  it('re-sends exactly the subscribed events since the time that had no succeeded delivery, oldest first, and nothing twice', async () => {
    const {sim, register, receiver, push, failWhen} = await setup()
    const endpoint = await register(['check.created'])
    failWhen((body) => body.includes('"rec-'))
    const before = await push('rec-before')
    await receiver.waitFor(1)
    // a millisecond after the event before: `since` counts from its time on
    const since = new Date(Date.parse(before.created_at) + 1).toISOString()
    const missed = []
    let expected = 1
    for (const id of ['rec-1', 'ok-2', 'rec-3', 'rec-4']) {
      const check = await push(id)
      // a check.updated is of a type the endpoint does not take
      await push(id, 200)
      await receiver.waitFor(++expected)
      if (id.startsWith('rec-')) missed.push(check.id)
    }
    failWhen(() => false)

    // `since` at any RFC 3339 offset names the same instant, to the millisecond; the answer gives it in UTC
    const recover = (at: string) => sim.api('POST', `/v1/webhook-endpoints/${endpoint.id}/recover`, {body: {since: at}})
    const recovery = await recover(atOffset(since, 330))
    expect(recovery.status).toBe(202)
    expect(recovery.body).toEqual({object: 'recovery', endpoint_id: endpoint.id, since, event_count: 3})
    await receiver.waitFor(expected + 3)
    const resent = receiver.received.slice(expected).map((r) => JSON.parse(r.body))
    expect(resent.map((e) => e.data.id).sort()).toEqual([...missed].sort())
    expect(resent.every((e) => e.type === 'check.created')).toBe(true)
    // created in creation order: the list is newest first
    const newest = (await sim.api('GET', `/v1/deliveries?endpoint_id=${endpoint.id}&limit=3`)).body.data
    const events = await Promise.all(
      newest.reverse().map(async (d: {event_id: string}) => (await sim.api('GET', `/v1/events/${d.event_id}`)).body),
    )
    expect(events.map((e) => e.data.id)).toEqual(missed)

    // the three recovered, and ok-2's first
    const succeeded = `/v1/deliveries?endpoint_id=${endpoint.id}&status=succeeded`
    await expect.poll(async () => (await sim.api('GET', succeeded)).body.data.length).toBe(4)
    const again = await recover(atOffset(since, -180))
    expect(again.body).toEqual({object: 'recovery', endpoint_id: endpoint.id, since, event_count: 0})
    // RFC 3339 lets T and Z be lower case
    expect((await recover(since.toLowerCase())).body).toEqual(again.body)
    // a time without its offset names no instant
    const local = await recover(since.slice(0, -1))
    expect([local.status, local.body.error.code, local.body.error.details]).toEqual([
      422,
      'validation_failed',
      [{path: 'since', message: 'must be an RFC 3339 date-time, e.g. 2026-11-25T00:00:00+01:00'}],
    ])
  })
})

describe('recovery takes only what the endpoint had and missed', () => {
  it('skips events from before the endpoint and events with a succeeded delivery to it, and re-sends a failed one', async () => {
    const {sim, register, receiver, push, failWhen} = await setup()
    // before the endpoint: an event another endpoint took
    const elsewhere = await register()
    const early = await push('skip-early')
    await receiver.waitFor(1)
    await sim.api('DELETE', `/v1/webhook-endpoints/${elsewhere.id}`)
    const endpoint = await register()
    await push('skip-ok')
    failWhen((body) => body.includes('"skip-failed"'))
    const failed = await push('skip-failed')
    await receiver.waitFor(3)
    const statuses = async () =>
      (await sim.api('GET', `/v1/deliveries?endpoint_id=${endpoint.id}`)).body.data.map(
        (d: {attempts: unknown[]; status: string}) => `${d.status} ${d.attempts.length}`,
      )
    // the failed one waits for its retry; the other succeeded
    await expect.poll(statuses).toEqual(['pending 1', 'succeeded 1'])
    failWhen(() => false)

    const since = new Date(Date.parse(early.created_at) - 1000).toISOString()
    const recovery = await sim.api('POST', `/v1/webhook-endpoints/${endpoint.id}/recover`, {body: {since}})
    expect([recovery.status, recovery.body]).toEqual([
      202,
      {object: 'recovery', endpoint_id: endpoint.id, since, event_count: 1},
    ])
    await receiver.waitFor(4)
    expect(JSON.parse(receiver.received[3]!.body).data.id).toBe(failed.id)
  })
})

/**
 * `id` is superseded by `by`, with its one failed attempt and no next one; an hour on the clock makes no
 * attempt, so the receiver has had the two attempts only.
 */
async function expectSupersededForGood(sim: TestServer, receiver: {received: unknown[]}, id: string, by: string) {
  const get = async () => (await sim.api('GET', `/v1/deliveries/${id}`)).body
  expect(await get()).toMatchObject({
    status: 'superseded',
    superseded_by: by,
    next_attempt_at: null,
    attempts: [{status_code: 500}],
  })
  const advanced = await sim.api('POST', '/v1/sim/clock/advance', {body: {seconds: 3600}})
  expect([advanced.status, advanced.body.attempts]).toEqual([200, 0])
  expect(receiver.received).toHaveLength(2)
  expect((await get()).attempts).toHaveLength(1)
}

describe('a success ends the other deliveries of its event to that endpoint', () => {
  it('a resend that succeeds while the original waits for its retry makes it superseded; past its retry no attempt is made', async () => {
    const {sim, register, receiver, push, eventOf, failWhen} = await setup()
    const endpoint = await register()
    failWhen(() => true)
    const check = await push('sup-1')
    await receiver.waitFor(1)
    const get = async (id: string) => (await sim.api('GET', `/v1/deliveries/${id}`)).body
    const [original] = (await sim.api('GET', `/v1/deliveries?endpoint_id=${endpoint.id}`)).body.data
    await expect.poll(async () => (await get(original.id)).attempts.length).toBe(1)
    expect((await get(original.id)).status).toBe('pending')

    failWhen(() => false)
    const resent = await sim.api('POST', `/v1/events/${(await eventOf(check.id)).id}/resend`, {
      body: {endpoint_id: endpoint.id},
    })
    expect(resent.status).toBe(201)
    await expect.poll(async () => (await get(resent.body.id)).status).toBe('succeeded')
    await expectSupersededForGood(sim, receiver, original.id, resent.body.id)
    const superseded = await sim.api('GET', `/v1/deliveries?endpoint_id=${endpoint.id}&status=superseded`)
    expect(superseded.body.data.map((d: {id: string}) => d.id)).toEqual([original.id])
  })

  it('an attempt out when its delivery is superseded is recorded when it ends, and no retry follows', async () => {
    // the original's first attempt waits for the test and then fails; the resend's is answered at once
    const {sim, receiver, endpoint, delivery: original, answerFirst} = await withFirstAttemptOut(500, 'sup-out')
    const resent = await sim.api('POST', `/v1/events/${original.event_id}/resend`, {
      body: {endpoint_id: endpoint.id},
    })
    const get = async (id: string) => (await sim.api('GET', `/v1/deliveries/${id}`)).body
    await expect.poll(async () => (await get(resent.body.id)).status).toBe('succeeded')
    expect(await get(original.id)).toMatchObject({status: 'superseded', superseded_by: resent.body.id})

    answerFirst()
    await expect.poll(async () => (await get(original.id)).attempts.length).toBe(1)
    await expectSupersededForGood(sim, receiver, original.id, resent.body.id)
  })
})
