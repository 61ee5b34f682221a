import {afterEach, describe, expect, it} from 'vitest'
import {seedStore} from '../../src/server/service.js'
import {checkWith} from '../helpers/checks.js'
import {serveStorage} from '../helpers/serve-storage.js'
import {openTestStore} from '../helpers/postgres.js'
import {startReceiver} from '../helpers/receiver.js'
import {call, startTestServer, TEST_SEED, type TestServer} from '../helpers/simulator.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

/** A real server and a receiver that answers each request as `respond` says. */
async function setup(respond: Parameters<typeof startReceiver>[0], serve?: Parameters<typeof startTestServer>[0]) {
  const receiver = await startReceiver(respond)
  const sim: TestServer = await startTestServer(serve)
  cleanup.push(
    () => receiver.close(),
    () => sim.close(),
  )
  const register = async () => {
    const answer = await sim.api('POST', '/v1/webhook-endpoints', {
      body: {url: receiver.url, event_types: ['check.created']},
    })
    expect(answer.status).toBe(201)
    receiver.verifyWith(answer.body.secret)
    return answer.body as {id: string}
  }
  const push = async (id: string) =>
    expect((await sim.api('PUT', `/v1/checks/external/${id}`, {body: checkWith([['a', 1, 100]])})).status).toBe(201)
  const deliveriesOf = async (endpointId: string) =>
    (await sim.api('GET', `/v1/deliveries?endpoint_id=${endpointId}`)).body.data
  const advance = async (seconds: number) => {
    const answer = await sim.api('POST', '/v1/sim/clock/advance', {body: {seconds}})
    expect(answer.status).toBe(200)
    return answer.body as {attempts: number}
  }
  return {receiver, sim, register, push, deliveriesOf, advance}
}

describe('an endpoint deleted while an attempt of its is out', () => {
  it.each([
    [200, 'succeeded'],
    [500, 'canceled'],
  ])(
    'records the attempt as it came: a %i leaves the delivery %s, and nothing more is sent, not even a chaos duplicate',
    async (status, outcome) => {
      let release!: () => void
      const answered = new Promise<number>((resolve) => (release = () => resolve(status)))
      const {receiver, sim, register, push, deliveriesOf, advance} = await setup(() => answered)
      const endpoint = await register()
      // every success would be sent once more (docs/api.md, "Delivery chaos"): not to an endpoint deleted meanwhile
      const chaos = await sim.api('PUT', `/v1/sim/webhook-endpoints/${endpoint.id}/chaos`, {body: {duplicate: 1}})
      expect(chaos.status).toBe(200)
      await push(`del-${status}`)
      // the attempt has reached the receiver, which holds its answer until the endpoint is gone
      await receiver.waitFor(1)
      expect((await sim.api('DELETE', `/v1/webhook-endpoints/${endpoint.id}`)).status).toBe(200)
      expect(await deliveriesOf(endpoint.id)).toMatchObject([{status: 'canceled', attempts: [], next_attempt_at: null}])
      release()
      // waits for the attempt out, then walks past every retry a failure would have had
      await advance(40 * 3600)
      const [delivery] = await deliveriesOf(endpoint.id)
      expect(delivery).toMatchObject({status: outcome, next_attempt_at: null})
      expect(delivery.attempts).toMatchObject([{attempt: 1, status_code: status}])
      expect(receiver.received).toHaveLength(1)
    },
  )
})

describe('an endpoint disabled while an attempt of its is out', () => {
  it('records the attempt that succeeds afterwards, and sends it no chaos duplicate', async () => {
    // each attempt is held until the test answers it, in the order they arrived
    const answers: ((status: number) => void)[] = []
    const {receiver, sim, register, push, deliveriesOf, advance} = await setup(
      () => new Promise<number>((resolve) => answers.push(resolve)),
      {serve: {disableAfter: 1, retrySchedule: []}},
    )
    const endpoint = await register()
    const chaos = await sim.api('PUT', `/v1/sim/webhook-endpoints/${endpoint.id}/chaos`, {body: {duplicate: 1}})
    expect(chaos.status).toBe(200)
    await push('dis-out-1')
    await push('dis-out-2')
    await receiver.waitFor(2)
    // the first fails with no retry left: its delivery is dead, and the endpoint disabled
    answers[0]!(500)
    await expect
      .poll(async () => (await sim.api('GET', `/v1/webhook-endpoints/${endpoint.id}`)).body.status)
      .toBe('disabled')
    answers[1]!(200)
    // waits for the attempt out to end, a duplicate of it included
    await advance(1)
    expect((await deliveriesOf(endpoint.id)).map((d: {status: string}) => d.status).sort()).toEqual([
      'dead',
      'succeeded',
    ])
    const attempts = (await deliveriesOf(endpoint.id)).flatMap((d: {attempts: unknown[]}) => d.attempts)
    expect(attempts).toHaveLength(2)
    expect(receiver.received).toHaveLength(2)
  })
})

/** The seeded API on the run's store (memory or PostgreSQL), its claims held on demand (helpers/serve-storage.ts). */
async function serveOnTestStore() {
  const {store, close} = await openTestStore()
  await seedStore(store, {seed: TEST_SEED})
  const {url, holdNextClaim, close: stop} = await serveStorage(store)
  cleanup.push(async () => {
    await stop()
    await close()
  })
  return {url, api: (method: string, path: string, body?: unknown) => call(url, method, path, {body}), holdNextClaim}
}

describe("an endpoint that no longer takes a delivery's event type", () => {
  it('is sent none of its retries: canceled when it comes due, and a manual retry is refused as a resend is', async () => {
    const {receiver, sim, register, push, deliveriesOf, advance} = await setup(() => 500, {
      serve: {retrySchedule: [60]},
    })
    const endpoint = await register()
    await push('type-dropped')
    await receiver.waitFor(1)
    const patch = {body: {event_types: ['feedback.received']}}
    expect((await sim.api('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, patch)).status).toBe(200)
    expect((await advance(120)).attempts).toBe(0)
    const [delivery] = await deliveriesOf(endpoint.id)
    expect([delivery.status, delivery.attempts.length, receiver.received.length]).toEqual(['canceled', 1, 1])
    const retried = await sim.api('POST', `/v1/deliveries/${delivery.id}/retry`)
    expect([retried.status, retried.body.error?.code]).toEqual([422, 'event_type_not_subscribed'])
  })
})

describe('the scheduler clock at the end of year 9999', () => {
  it('stops there: a snapshot restored with an offset far past it leaves the clock, pushes and deliveries working', async () => {
    const {receiver, sim, register, push, deliveriesOf, advance} = await setup(() => 500)
    const endpoint = await register()
    await sim.api('POST', '/v1/sim/snapshots', {body: {name: 'now'}})
    const document = (await sim.api('GET', '/v1/sim/snapshots/now/export')).body
    const far = {...document, name: 'far', clock_offset_ms: 9e15}
    expect((await sim.api('POST', '/v1/sim/snapshots/import', {body: far})).status).toBe(201)
    expect((await sim.api('POST', '/v1/sim/snapshots/far/restore')).status).toBe(200)
    const clock = await sim.api('GET', '/v1/sim/clock')
    expect([clock.status, clock.body.now]).toEqual([200, '9999-12-31T23:59:59.999Z'])
    await push('t-last')
    await receiver.waitFor(1)
    // every retry falls due at the last time too, already past: each runs as soon as the attempt before it is
    // recorded, with or without the advance, which ends once all six have; the delivery then is dead
    const {attempts} = await advance(3600)
    expect(attempts).toBeLessThanOrEqual(6)
    expect(receiver.received).toHaveLength(7)
    expect(await deliveriesOf(endpoint.id)).toMatchObject([{status: 'dead', next_attempt_at: null}])
  })

  it('keeps an Idempotency-Key stored there: a payment sent twice with one key is made once', async () => {
    const sim = await startTestServer()
    cleanup.push(() => sim.close())
    await sim.api('POST', '/v1/sim/snapshots', {body: {name: 'now'}})
    const document = (await sim.api('GET', '/v1/sim/snapshots/now/export')).body
    expect(
      (await sim.api('POST', '/v1/sim/snapshots/import', {body: {...document, name: 'far', clock_offset_ms: 9e15}}))
        .status,
    ).toBe(201)
    expect((await sim.api('POST', '/v1/sim/snapshots/far/restore')).status).toBe(200)
    const check = (await sim.api('PUT', '/v1/checks/external/t-key', {body: checkWith([['a', 1, 1000]])})).body
    const pay = () =>
      sim.api('POST', `/v1/sim/checks/${check.id}/payments`, {
        body: {amount_cents: 300},
        headers: {'idempotency-key': 'pay-once'},
      })
    const [first, again] = [await pay(), await pay()]
    expect([first.status, again.status, again.headers.get('idempotent-replayed')]).toEqual([201, 201, 'true'])
    expect(again.body.id).toBe(first.body.id)
    expect((await sim.api('GET', `/v1/checks/${check.id}`)).body.amount_paid_cents).toBe(300)
  })
})

describe('POST /sim/clock/advance counts the attempts it made', () => {
  // the first's retry, 30 s before the second's, fails, goes dead and disables the endpoint: whether the clock gets
  // there in steps or in one advance past both, that is recorded before the second's retry comes due
  it.each([
    ['in steps', [0.001, 30, 60], [0, 1, 0]],
    ['in one advance past both retries', [120], [1]],
  ])(
    'a delivery whose endpoint was disabled on the way is canceled when it comes due, and is no attempt: %s',
    async (_, steps, attempts) => {
      const {receiver, sim, register, push, deliveriesOf, advance} = await setup(() => 500, {
        serve: {disableAfter: 1, retrySchedule: [60]},
      })
      const endpoint = await register()
      await push('dis-1')
      await receiver.waitFor(1)
      expect((await advance(30)).attempts).toBe(0)
      // due 30 s after the first: its retry comes after the first's
      await push('dis-2')
      await receiver.waitFor(2)
      const made: number[] = []
      for (const seconds of steps) made.push((await advance(seconds)).attempts)
      expect(made).toEqual(attempts)
      expect(receiver.received).toHaveLength(3)
      expect((await sim.api('GET', `/v1/webhook-endpoints/${endpoint.id}`)).body.status).toBe('disabled')
      const statuses = (await deliveriesOf(endpoint.id)).map((d: {status: string; attempts: unknown[]}) => [
        d.status,
        d.attempts.length,
      ])
      expect(statuses).toEqual([
        ['canceled', 1],
        ['dead', 2],
      ])
    },
  )

  it('answers offset_seconds to the millisecond: an advance of a fraction of one shows no float noise', async () => {
    const {sim} = await setup(() => 200)
    for (const seconds of [0.0001, 1.3, 0.0001]) {
      const {offset_seconds} = (await sim.api('POST', '/v1/sim/clock/advance', {body: {seconds}})).body
      expect(String(offset_seconds)).toMatch(/^\d+(\.\d{1,3})?$/)
    }
  })

  it('answers the clock as it left it, though a reset sent while it ran has run before the answer', async () => {
    let release!: () => void
    const held = new Promise<number>((resolve) => (release = () => resolve(200)))
    let requests = 0
    const {receiver, sim, register, push} = await setup(() => (++requests === 2 ? held : 500), {
      serve: {retrySchedule: [60]},
    })
    await register()
    await push('held-retry')
    await receiver.waitFor(1)
    // the advance waits for the retry it ran, its answer held: the reset is sent while it runs
    const advanced = sim.api('POST', '/v1/sim/clock/advance', {body: {seconds: 3600}})
    for (let waiting = 0; waiting === 0;)
      waiting = (await sim.api('GET', '/v1/sim/clock')).body.advance?.waiting_for.length ?? 0
    const reset = sim.api('POST', '/v1/sim/clock/reset')
    release()
    // an advance's offset grows by its seconds less the time it ran (docs/api.md, "The scheduler clock")
    expect((await advanced).body.offset_seconds).toBeGreaterThan(3590)
    expect((await reset).body.offset_seconds).toBe(0)
  })

  it('holds the clock on an attempt out to the endpoint due next further off than a timer takes, with no warning', async () => {
    const warnings: string[] = []
    const onWarning = (warning: Error) => warnings.push(warning.name)
    process.on('warning', onWarning)
    cleanup.push(async () => process.off('warning', onWarning))
    let release!: () => void
    const held = new Promise<number>((resolve) => (release = () => resolve(500)))
    let requests = 0
    const {receiver, sim, register, push, advance} = await setup(() => (++requests === 2 ? held : 500), {
      serve: {retrySchedule: [30 * 86_400]},
    })
    await register()
    await push('far-1')
    await receiver.waitFor(1)
    await push('far-2')
    await receiver.waitFor(2)
    // far-1's retry is due in 30 days, past the longest timer: the advance waits for far-2's attempt, its answer held
    const advanced = advance(31 * 86_400)
    for (let waiting = 0; waiting === 0;)
      waiting = (await sim.api('GET', '/v1/sim/clock')).body.advance?.waiting_for.length ?? 0
    release()
    expect((await advanced).attempts).toBe(2)
    expect(receiver.received).toHaveLength(4)
    expect(warnings).toEqual([])
  })

  it.each([
    ['its endpoint deleted', 'DELETE', 0],
    ['retried', 'POST', 1],
  ])(
    'a delivery %s while the advance claims its retry: the answer counts the attempts sent, not the claim',
    async (_, method, attempts) => {
      const receiver = await startReceiver(() => 500)
      cleanup.push(() => receiver.close())
      const {api, holdNextClaim} = await serveOnTestStore()
      const created = await api('POST', '/v1/webhook-endpoints', {url: receiver.url, event_types: ['check.created']})
      receiver.verifyWith(created.body.secret)
      await api('PUT', '/v1/checks/external/held', checkWith([['a', 1, 100]]))
      await receiver.waitFor(1)
      const list = `/v1/deliveries?endpoint_id=${created.body.id}`
      await expect.poll(async () => (await api('GET', list)).body.data[0].attempts.length).toBe(1)
      const [delivery] = (await api('GET', list)).body.data

      // the retry falls due on the way: the advance queues it, and its claim waits until the delivery has changed
      const held = holdNextClaim()
      const advanced = api('POST', '/v1/sim/clock/advance', {seconds: 120})
      const release = await held
      const change =
        method === 'DELETE'
          ? await api('DELETE', `/v1/webhook-endpoints/${created.body.id}`)
          : await api('POST', `/v1/deliveries/${delivery.id}/retry`)
      expect(change.status).toBe(200)
      release()
      expect((await advanced).body.attempts).toBe(attempts)
      expect(receiver.received).toHaveLength(1 + attempts)
    },
  )
})

describe('an attempt out', () => {
  /**
   * A server whose receiver holds the first attempt of check `id`'s delivery unanswered, with an hour to
   * answer: whatever waited for that answer would not end within the test's time. `answer` makes the receiver
   * answer 200 from then on; `madeOnceMore` waits for the next attempt and says what the delivery came to.
   */
  async function attemptOut(id: string) {
    let hang = true
    const server = await setup(() => (hang ? 'hang' : 200), {serve: {receiverTimeoutMs: 3_600_000}})
    const endpoint = await server.register()
    await server.push(id)
    await server.receiver.waitFor(1)
    const madeOnceMore = async () => {
      await server.receiver.waitFor(2)
      await server.advance(0.001) // waits for the attempt in flight to be recorded
      const [delivery] = await server.deliveriesOf(endpoint.id)
      return [delivery.status, delivery.attempts.map((a: {status_code: number}) => a.status_code)]
    }
    return {...server, answer: () => (hang = false), madeOnceMore}
  }

  it('is let go by a stop, unrecorded, without waiting for its answer, and made again at the next start', async () => {
    const {sim, receiver, answer, madeOnceMore} = await attemptOut('s1')
    await sim.stop()
    answer()
    await sim.restart()
    expect(await madeOnceMore()).toEqual(['succeeded', [200]])
    expect(receiver.received.map((r) => r.headers['x-tablepay-delivery-attempt'])).toEqual(['1', '1'])
  })

  it('cuts short an advance waiting for it when the server stops: the advance gets no answer, the clock short of it', async () => {
    const {sim} = await attemptOut('c1')
    const advancing = sim.api('POST', '/v1/sim/clock/advance', {body: {seconds: 3600}}).then(
      (answer) => answer.status,
      (error: NodeJS.ErrnoException) => error.code,
    )
    await expect.poll(async () => (await sim.api('GET', '/v1/sim/clock')).body.advance?.attempts_out).toBe(1)
    await sim.stop()
    expect(await advancing).toBe('ECONNRESET')
    await sim.restart()
    expect((await sim.api('GET', '/v1/sim/clock')).body.offset_seconds).toBeLessThan(3600)
  })

  it('is let go by a restore that abandons it: the delivery restored goes at once, not once that answer comes', async () => {
    const {sim, answer, madeOnceMore} = await attemptOut('r1')
    expect((await sim.api('POST', '/v1/sim/snapshots', {body: {name: 'out'}})).status).toBe(201)
    answer()
    expect((await sim.api('POST', '/v1/sim/snapshots/out/restore')).status).toBe(200)
    expect(await madeOnceMore()).toEqual(['succeeded', [200]])
  })
})

describe('GET /deliveries filters', () => {
  it.each(['endpoint_id=', 'event_id='])(
    'refuses an empty one (?%s, a variable left unset) with 422 naming it, not an empty list',
    async (query) => {
      const sim = await startTestServer()
      cleanup.push(() => sim.close())
      const answer = await sim.api('GET', `/v1/deliveries?${query}`)
      expect([answer.status, answer.body.error.details[0].path]).toEqual([422, query.slice(0, -1)])
    },
  )
})
