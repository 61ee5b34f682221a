import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import {checkWith} from '../helpers/checks.js'
import {startReceiver} from '../helpers/receiver.js'
import {OTHER_KEY, READ_KEY, startTestServer, type TestServer} from '../helpers/simulator.js'

let sim: TestServer
let receiver: Awaited<ReturnType<typeof startReceiver>>
beforeAll(async () => {
  sim = await startTestServer()
  receiver = await startReceiver()
})
afterAll(async () => {
  await receiver.close()
  await sim.close()
})
beforeEach(async () => {
  expect((await sim.api('POST', '/v1/sim/reset')).status).toBe(200)
})

const addFault = async (fault: unknown, key?: string) => {
  const answer = await sim.api('POST', '/v1/sim/faults', {body: fault, key})
  expect(answer.status, answer.text).toBe(201)
  return answer.body
}
const push = (externalId: string, body: unknown = checkWith([['a', 1, 500]], {version: 1})) =>
  sim.api('PUT', `/v1/checks/external/${externalId}`, {body})
const list = async (path: string) =>
  (await sim.api('GET', `${path}${path.includes('?') ? '&' : '?'}limit=100`)).body.data

/** What the server has made durable: its journal, or its database's records. */
const journal = () => sim.stored()

describe('POST /v1/sim/faults', () => {
  it('answers the fault resource with its defaults', async () => {
    const fault = await addFault({status: 503, match: {method: 'put', path: '/v1/checks/external/*'}})
    expect(fault).toEqual({
      id: expect.stringMatching(/^flt_/),
      object: 'fault',
      match: {method: 'PUT', path: '/v1/checks/external/*'},
      status: 503,
      retry_after_s: 1,
      delay_ms: 0,
      reset: false,
      after: false,
      times: 1,
      remaining: 1,
      probability: 1,
      seed: null,
      created_at: expect.any(String),
    })
    expect(await list('/v1/sim/faults')).toEqual([fault])
  })

  it('refuses a fault that does nothing, an unknown status, status with reset, and a Retry-After no answer carries', async () => {
    for (const body of [{}, {status: 418}, {status: 503, reset: true}, {delay_ms: 60_001}, {probability: 2}]) {
      const answer = await sim.api('POST', '/v1/sim/faults', {body})
      expect(answer.status, JSON.stringify(body)).toBe(422)
    }
    for (const body of [
      {status: 500, retry_after_s: 5},
      {delay_ms: 10, retry_after_s: 5},
    ]) {
      const answer = await sim.api('POST', '/v1/sim/faults', {body})
      expect([answer.status, answer.body.error.details], JSON.stringify(body)).toEqual([
        422,
        [{path: 'retry_after_s', message: expect.stringContaining('only 429 and 503 answers carry')}],
      ])
    }
    expect(await list('/v1/sim/faults')).toEqual([])
    const unknownStatus = await sim.api('POST', '/v1/sim/faults', {body: {status: 418}})
    expect(unknownStatus.body.error.details).toEqual([
      {path: 'status', message: 'Invalid option: expected one of 429|500|502|503|504'},
    ])
  })

  it('refuses a match that no fault strikes, naming the routes it does: /v1/ routes but the simulator and public ones, by their methods', async () => {
    for (const match of [
      ...[
        '/checks/external/*',
        '/v1/sim/**',
        '/v1/sim/clock/advance',
        '/v1/health',
        '/v1/openapi.json',
        // a `*` first can only be v1 where a fault strikes; slashes at the end match nothing more
        '/*/sim/**',
        '/*/health',
        '/v1/health//',
        // no route takes these paths (a typo), or any path under them
        '/v1/chekcs/*',
        '/v1/locations/*',
        '/v1//checks',
      ].map((path) => ({path})),
      // nor these methods at these paths (405)
      {method: 'PUT', path: '/v1/locations'},
      {method: 'delete', path: '/v1/checks/*'},
    ]) {
      const answer = await sim.api('POST', '/v1/sim/faults', {body: {status: 503, match}})
      expect(answer.status, JSON.stringify(match)).toBe(422)
      expect(answer.body.error.details).toEqual([
        {path: 'match.path', message: expect.stringContaining('faults strike API routes under /v1/')},
      ])
    }
    // a method that is none is said alone, not also as a match no route takes
    const badMethod = await sim.api('POST', '/v1/sim/faults', {
      body: {status: 503, match: {method: 'FOO', path: '/v1/chekcs/*'}},
    })
    expect(badMethod.body.error.details).toEqual([{path: 'match.method', message: expect.any(String)}])
    // `**` is the rest of the path: a segment after it would match anything
    for (const path of ['/v1/**/claims', '/**/checks', '/v1/**/**']) {
      const answer = await sim.api('POST', '/v1/sim/faults', {body: {status: 503, match: {path}}})
      expect(answer.status, path).toBe(422)
      expect(answer.body.error.details).toEqual([
        {path: 'match.path', message: expect.stringContaining('it can only be the last segment')},
      ])
    }
    for (const match of [
      ...['/v1/**', '/v1/**/', '/**', '/*/checks/*', '/v1/checks/chk_1/*', '/v1/*/external/t1'].map((path) => ({path})),
      {method: 'HEAD', path: '/v1/locations'},
      {method: 'patch', path: '/v1/webhook-endpoints/*'},
      {method: 'PUT'},
    ]) {
      const answer = await sim.api('POST', '/v1/sim/faults', {body: {status: 503, match, times: 1}})
      expect(answer.status, JSON.stringify(match)).toBe(201)
    }
  })

  it('a status fault answers the error body with Retry-After and X-Tablepay-Fault, and changes nothing', async () => {
    const endpoint = await sim.api('POST', '/v1/webhook-endpoints', {
      body: {url: receiver.url, event_types: ['check.created']},
    })
    receiver.verifyWith(endpoint.body.secret)
    const before = await journal()
    const fault = await addFault({status: 503, retry_after_s: 7})
    const answer = await push('f1')
    expect(answer.status).toBe(503)
    expect(answer.headers.get('retry-after')).toBe('7')
    expect(answer.headers.get('x-tablepay-fault')).toBe(fault.id)
    expect(answer.body.error).toMatchObject({code: 'simulated_fault', request_id: answer.headers.get('x-request-id')})
    expect(await journal()).toBe(before)
    expect(await list('/v1/checks')).toEqual([])
    expect(await list('/v1/events')).toEqual([])
    expect(await list('/v1/deliveries')).toEqual([])
    const logged = (await sim.api('GET', `/v1/sim/requests/${answer.headers.get('x-request-id')}`)).body
    expect(logged).toMatchObject({status: 503, fault_id: fault.id, error: {code: 'simulated_fault'}})
    // used up: the next push goes through
    expect((await push('f1')).status).toBe(201)
    await sim.api('DELETE', `/v1/webhook-endpoints/${endpoint.body.id}`)
  })

  it('429 answers rate_limited with Retry-After; 500, 502 and 504 answer without it', async () => {
    await addFault({status: 429, retry_after_s: 3})
    const limited = await push('f2')
    expect([limited.status, limited.body.error.code, limited.headers.get('retry-after')]).toEqual([
      429,
      'rate_limited',
      '3',
    ])
    for (const status of [500, 502, 504]) {
      await addFault({status})
      const failed = await push('f2')
      expect([failed.status, failed.body.error.code, failed.headers.get('retry-after')]).toEqual([
        status,
        'simulated_fault',
        null,
      ])
    }
  })

  it('after: true makes the change durable and delivers its events, then loses the answer; the retry is unchanged', async () => {
    const endpoint = await sim.api('POST', '/v1/webhook-endpoints', {
      body: {url: receiver.url, event_types: ['check.created']},
    })
    receiver.verifyWith(endpoint.body.secret)
    const delivered = receiver.received.length
    const fault = await addFault({status: 503, after: true, match: {path: '/v1/checks/external/*'}})
    const body = checkWith([['a', 1, 500]], {version: 1})
    const before = await journal()
    const lost = await push('f3', body)
    expect(lost.status).toBe(503)
    expect(lost.headers.get('x-tablepay-fault')).toBe(fault.id)
    // the answer is lost whole: no header of it tells the push was made
    expect(lost.headers.get('x-tablepay-push-result')).toBeNull()
    expect((await journal()).length).toBeGreaterThan(before.length)
    await receiver.waitFor(delivered + 1)
    expect(JSON.parse(receiver.received[delivered]!.body)).toMatchObject({type: 'check.created'})

    const retried = await push('f3', body)
    expect([retried.status, retried.headers.get('x-tablepay-push-result')]).toEqual([200, 'unchanged'])
    const created = (await list('/v1/events')).filter((e: {type: string}) => e.type === 'check.created')
    expect(created).toHaveLength(1)
    const logged = (await sim.api('GET', `/v1/sim/requests/${lost.headers.get('x-request-id')}`)).body
    expect(logged).toMatchObject({status: 503, push_result: 'created', check_id: retried.body.id, fault_id: fault.id})

    // on disk: a restart still has the check
    await sim.stop()
    await sim.restart()
    expect((await sim.api('GET', '/v1/checks/external/f3')).status).toBe(200)
    await sim.api('DELETE', `/v1/webhook-endpoints/${endpoint.body.id}`)
  })

  it('after: true with 429 says the request was carried out too: a 429 otherwise means nothing was done', async () => {
    const fault = await addFault({status: 429, after: true, match: {path: '/v1/checks/external/*'}})
    const lost = await push('f-429', checkWith([['soup', 1, 500]]))
    expect([lost.status, lost.body.error.code, lost.headers.get('x-tablepay-fault')]).toEqual([
      429,
      'rate_limited',
      fault.id,
    ])
    expect(lost.body.error.message).toContain(`(simulated by fault ${fault.id}): the request was carried out`)
    expect((await sim.api('GET', '/v1/checks/external/f-429')).status).toBe(200)
  })

  it('after: true loses a refusal too, and says nothing was saved only if it succeeded; the retry gets the refusal', async () => {
    const fault = await addFault({status: 503, after: true, match: {path: '/v1/checks/external/*'}})
    const refused = {nope: 1}
    const lost = await push('f-refused', refused)
    expect([lost.status, lost.headers.get('x-tablepay-fault')]).toEqual([503, fault.id])
    expect(lost.body.error.message).toContain('carried out (saved, if it succeeded)')
    const logged = (await sim.api('GET', `/v1/sim/requests/${lost.headers.get('x-request-id')}`)).body
    expect(logged).toMatchObject({status: 503, push_result: null, fault_id: fault.id})
    expect((await sim.api('GET', '/v1/checks/external/f-refused')).status).toBe(404)
    const retried = await push('f-refused', refused)
    expect([retried.status, retried.body.error.code]).toEqual([422, 'validation_failed'])
  })

  it("the simulator's own clients' reads (the dashboard, the CLI's tails, scenario runs) leave the faults to the user's requests", async () => {
    const fault = await addFault({status: 500, match: {method: 'GET', path: '/v1/events'}})
    for (const client of ['dashboard', 'cli-tail', 'scenario']) {
      const own = await sim.api('GET', '/v1/events', {headers: {'x-tablepay-client': client}})
      expect([own.status, own.headers.get('x-tablepay-fault')]).toEqual([200, null])
    }
    const users = await sim.api('GET', '/v1/events')
    expect([users.status, users.headers.get('x-tablepay-fault')]).toEqual([500, fault.id])
    // what they change is the user's traffic: a fault strikes it
    const write = await addFault({status: 503, match: {method: 'PUT', path: '/v1/checks/external/*'}})
    const pushed = await sim.api('PUT', '/v1/checks/external/own-write', {
      body: checkWith([['a', 1, 500]]),
      headers: {'x-tablepay-client': 'dashboard'},
    })
    expect([pushed.status, pushed.headers.get('x-tablepay-fault')]).toEqual([503, write.id])
  })

  it('times: 3 faults exactly three requests; times: null until deleted', async () => {
    await addFault({status: 500, times: 3})
    const statuses = []
    for (let i = 0; i < 5; i++) statuses.push((await sim.api('GET', '/v1/locations')).status)
    expect(statuses).toEqual([500, 500, 500, 200, 200])
    expect(await list('/v1/sim/faults')).toEqual([])

    const forever = await addFault({status: 502, times: null})
    expect(forever).toMatchObject({times: null, remaining: null})
    for (let i = 0; i < 4; i++) expect((await sim.api('GET', '/v1/locations')).status).toBe(502)
    expect((await sim.api('DELETE', `/v1/sim/faults/${forever.id}`)).status).toBe(200)
    expect((await sim.api('GET', '/v1/locations')).status).toBe(200)
    expect((await sim.api('DELETE', `/v1/sim/faults/${forever.id}`)).status).toBe(404)

    // the most either store counts down, and one more
    const most = await addFault({status: 503, times: 2 ** 31 - 1, match: {path: '/v1/claims/clm_none'}})
    expect(most).toMatchObject({times: 2 ** 31 - 1, remaining: 2 ** 31 - 1})
    const over = await sim.api('POST', '/v1/sim/faults', {body: {status: 503, times: 2 ** 31}})
    expect([over.status, over.body.error.details?.[0]?.path]).toEqual([422, 'times'])
  })

  it('answers 404 not_found to a DELETE of an id no fault has, NUL and backslash included, and deletes nothing', async () => {
    const kept = await addFault({status: 503, times: null, match: {path: '/v1/claims/clm_none'}})
    for (const id of ['flt_missing', 'a%00b', '%00', 'a%5Cb']) {
      const answer = await sim.api('DELETE', `/v1/sim/faults/${id}`)
      expect([answer.status, answer.body.error.code], id).toEqual([404, 'not_found'])
    }
    expect((await list('/v1/sim/faults')).map((fault: {id: string}) => fault.id)).toEqual([kept.id])
  })

  it('probability with a seed faults the same requests on every run', async () => {
    const run = async () => {
      await sim.api('DELETE', '/v1/sim/faults')
      await addFault({status: 503, probability: 0.5, seed: 42, times: null})
      const hits = []
      for (let i = 0; i < 20; i++) hits.push((await sim.api('GET', '/v1/locations')).status === 503)
      return hits
    }
    const first = await run()
    expect(first.filter(Boolean).length).toBeGreaterThan(2)
    expect(first.filter(Boolean).length).toBeLessThan(18)
    expect(await run()).toEqual(first)
  })

  it('reset: true closes the connection with no answer, and the request changed nothing', async () => {
    await addFault({reset: true})
    await expect(
      fetch(`${sim.url}/v1/locations`, {headers: {authorization: 'Bearer tp_test_demo_write'}}),
    ).rejects.toThrow()
    const logged = (await sim.api('GET', '/v1/sim/requests?path=/v1/locations')).body.data[0]
    expect(logged).toMatchObject({status: null, fault_id: expect.stringMatching(/^flt_/)})
    expect((await sim.api('GET', '/v1/locations')).status).toBe(200)
  })

  it('delay_ms holds the answer that long, as the answer’s Server-Timing says', async () => {
    const fault = await addFault({delay_ms: 300})
    const started = performance.now()
    const slow = await sim.api('GET', '/v1/locations')
    const took = performance.now() - started
    expect(slow.status).toBe(200)
    expect(slow.headers.get('x-tablepay-fault')).toBe(fault.id)
    const held = Number(/fault;dur=(\d+)/.exec(slow.headers.get('server-timing') ?? '')?.[1])
    expect(held).toBeGreaterThanOrEqual(299)
    expect(took).toBeGreaterThanOrEqual(held - 1)

    await addFault({delay_ms: 200, status: 504})
    const slowFailure = await sim.api('GET', '/v1/locations')
    expect(slowFailure.status).toBe(504)
    expect(Number(/fault;dur=(\d+)/.exec(slowFailure.headers.get('server-timing') ?? '')?.[1])).toBeGreaterThanOrEqual(
      199,
    )
  })

  it('matches by method and path pattern: * one segment, ** the rest', async () => {
    await addFault({status: 500, match: {method: 'GET', path: '/v1/checks/*'}, times: null})
    expect((await push('f4')).status).toBe(201)
    expect((await sim.api('GET', '/v1/checks/external/f4')).status).toBe(200)
    expect((await sim.api('GET', '/v1/checks/chk_nope')).status).toBe(500)
    expect((await sim.api('GET', '/v1/checks')).status).toBe(200)
    await sim.api('DELETE', '/v1/sim/faults')
    await addFault({status: 500, match: {path: '/v1/checks/**'}, times: null})
    expect((await sim.api('GET', '/v1/checks/external/f4')).status).toBe(500)
    expect((await sim.api('GET', '/v1/checks')).status).toBe(200)
  })

  it('matches a method given in any case, PATCH included', async () => {
    const endpoint = await sim.api('POST', '/v1/webhook-endpoints', {
      body: {url: receiver.url, event_types: ['check.created']},
    })
    // a reset keeps endpoints: the pushes of the tests after this one reach it too, signed with its secret
    receiver.verifyWith(endpoint.body.secret)
    const fault = await addFault({status: 503, match: {method: 'Patch', path: '/v1/webhook-endpoints/*'}})
    expect(fault.match.method).toBe('PATCH')
    const path = `/v1/webhook-endpoints/${endpoint.body.id}`
    expect((await sim.api('GET', path)).status).toBe(200)
    const patched = await sim.api('PATCH', path, {body: {description: 'faulted'}})
    expect([patched.status, patched.headers.get('x-tablepay-fault')]).toEqual([503, fault.id])
    expect((await sim.api('GET', path)).body.description).toBeNull()
    await sim.api('DELETE', path)
  })

  it('never touches /v1/sim/… or another account; the oldest matching fault wins', async () => {
    const first = await addFault({status: 502, times: null})
    await addFault({status: 504, times: null})
    for (const path of ['/v1/sim/clock', '/v1/sim/faults', '/v1/sim/requests']) {
      expect((await sim.api('GET', path)).status, path).toBe(200)
    }
    expect((await sim.api('GET', '/v1/locations', {key: OTHER_KEY})).status).toBe(200)
    expect((await sim.api('GET', '/v1/health', {key: null})).status).toBe(200)
    const mine = await sim.api('GET', '/v1/locations')
    expect([mine.status, mine.headers.get('x-tablepay-fault')]).toEqual([502, first.id])
  })

  it('strikes only API routes: an unknown path or a method its path does not take keeps its own answer and the fault', async () => {
    const fault = await addFault({status: 502})
    const unknown = await sim.api('GET', '/v1/nope')
    expect([unknown.status, unknown.body.error.code, unknown.headers.get('x-tablepay-fault')]).toEqual([
      404,
      'not_found',
      null,
    ])
    const otherMethod = await sim.api('PATCH', '/v1/locations')
    expect([otherMethod.status, otherMethod.headers.get('x-tablepay-fault')]).toEqual([405, null])
    expect(await list('/v1/sim/faults')).toEqual([{...fault, remaining: 1}])
    const routed = await sim.api('GET', '/v1/locations')
    expect([routed.status, routed.headers.get('x-tablepay-fault')]).toEqual([502, fault.id])
  })

  it('faults are per account, and a reset clears them', async () => {
    const theirs = await addFault({status: 500, times: null}, OTHER_KEY)
    expect(await list('/v1/sim/faults')).toEqual([])
    expect((await sim.api('DELETE', `/v1/sim/faults/${theirs.id}`)).status).toBe(404)
    await addFault({status: 500, times: null})
    expect((await sim.api('POST', '/v1/sim/reset')).status).toBe(200)
    expect(await list('/v1/sim/faults')).toEqual([])
    expect((await sim.api('GET', '/v1/locations')).status).toBe(200)
    expect((await sim.api('DELETE', '/v1/sim/faults', {key: OTHER_KEY})).body).toEqual({
      object: 'fault_clear',
      deleted: 1,
    })
  })
})

describe('serve --rate-limit', () => {
  let limited: TestServer
  let now = 1_000_000
  beforeAll(async () => {
    limited = await startTestServer({memory: true, serve: {rateLimit: 5, rateLimitClock: () => now}})
  })
  afterAll(() => limited.close())
  afterEach(() => {
    now += 60_000
  })

  it('the 6th request in a second is 429 with Retry-After; after the wait one succeeds', async () => {
    const answers = []
    for (let i = 0; i < 6; i++) answers.push(await limited.api('GET', '/v1/locations'))
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 429])
    expect(answers.map((a) => a.headers.get('x-ratelimit-remaining'))).toEqual(['4', '3', '2', '1', '0', '0'])
    expect(answers[0]!.headers.get('x-ratelimit-limit')).toBe('5')
    const refused = answers[5]!
    expect(refused.body.error.code).toBe('rate_limited')
    expect(refused.headers.get('retry-after')).toBe('1')
    now += 1000 * Number(refused.headers.get('retry-after'))
    expect((await limited.api('GET', '/v1/locations')).status).toBe(200)
  })

  it("counts per account: the account's other keys and its scratch accounts' keys share its bucket", async () => {
    const scratch = await limited.api('POST', '/v1/sim/accounts')
    const nested = await limited.api('POST', '/v1/sim/accounts', {key: scratch.body.api_keys[0].key})
    for (let i = 0; i < 5; i++) await limited.api('GET', '/v1/locations')
    expect((await limited.api('GET', '/v1/locations', {key: READ_KEY})).status).toBe(429)
    expect((await limited.api('GET', '/v1/locations', {key: scratch.body.api_keys[0].key})).status).toBe(429)
    expect((await limited.api('GET', '/v1/locations', {key: nested.body.api_keys[0].key})).status).toBe(429)
    expect((await limited.api('GET', '/v1/locations', {key: OTHER_KEY})).status).toBe(200)
    await limited.api('DELETE', `/v1/sim/accounts/${scratch.body.id}`)
  })

  it("neither limits the simulator's own clients' reads nor counts them against the account", async () => {
    const own = {headers: {'x-tablepay-client': 'dashboard'}}
    for (let i = 0; i < 8; i++) expect((await limited.api('GET', '/v1/events', own)).status).toBe(200)
    const answers = []
    for (let i = 0; i < 6; i++) answers.push((await limited.api('GET', '/v1/locations')).status)
    expect(answers).toEqual([200, 200, 200, 200, 200, 429])
  })

  it('never limits /v1/sim/… or /v1/health', async () => {
    for (let i = 0; i < 5; i++) await limited.api('GET', '/v1/locations')
    expect((await limited.api('GET', '/v1/locations')).status).toBe(429)
    expect((await limited.api('GET', '/v1/sim/clock')).status).toBe(200)
    expect((await limited.api('GET', '/v1/health', {key: null})).status).toBe(200)
  })
})
