import {gzipSync} from 'node:zlib'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {checkWith} from '../helpers/checks.js'
import {type Answer, OTHER_KEY, READ_KEY, startTestServer, type TestServer, WRITE_KEY} from '../helpers/simulator.js'

let sim: TestServer
beforeAll(async () => {
  sim = await startTestServer()
})
afterAll(() => sim.close())

function expectError(answer: Answer, status: number, code: string) {
  expect(answer.status).toBe(status)
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/)
  expect(answer.body.error).toMatchObject({
    code,
    message: expect.any(String),
    request_id: answer.headers.get('x-request-id'),
  })
  expect(Object.keys(answer.body)).toEqual(['error'])
}

async function nothingStored() {
  expect((await sim.api('GET', '/v1/checks')).body.data).toEqual([])
  expect((await sim.api('GET', '/v1/events')).body.data).toEqual([])
}

const valid = () => checkWith([['a', 1, 500]])

describe('every route', () => {
  const routes: [string, string, unknown?][] = [
    ['GET', '/v1/health'],
    ['GET', '/v1/locations'],
    ['GET', '/v1/checks'],
    ['GET', '/v1/checks/chk_missing'],
    ['GET', '/v1/checks/external/missing'],
    ['PUT', '/v1/checks/external/x1', valid()],
    ['GET', '/v1/checks/chk_missing/claims'],
    ['POST', '/v1/sim/checks/chk_missing/claims', {items: [{external_id: 'a', quantity: 1}]}],
    ['GET', '/v1/claims/clm_missing'],
    ['GET', '/v1/events'],
    ['GET', '/v1/events/evt_missing'],
    ['GET', '/v1/unknown'],
    ['GET', '/elsewhere'],
    ['DELETE', '/v1/checks'],
    ['PATCH', '/v1/checks/external/x1', {}],
  ]

  it.each(routes)('%s %s carries X-Request-Id, and errors have the documented body', async (method, path, body) => {
    for (const key of [undefined, null, READ_KEY, 'tp_test_unknown']) {
      const answer = await sim.api(method, path, {body, ...(key === undefined ? {} : {key})})
      expect(answer.headers.get('x-request-id')).toMatch(/^req_[a-z0-9]{20}$/)
      if (answer.status >= 400) {
        expect(answer.body.error.request_id).toBe(answer.headers.get('x-request-id'))
        expect(answer.body.error.code).toMatch(/^[a-z_]+$/)
      }
      expect(answer.status).toBeLessThan(500)
    }
    await sim.api('POST', '/v1/sim/reset')
  })

  it('answers 404 not_found for unknown routes and 405 method_not_allowed for a wrong method, naming where the routes are', async () => {
    const unknown = await sim.api('GET', '/v1/unknown')
    const wrong = await sim.api('DELETE', '/v1/checks')
    expectError(unknown, 404, 'not_found')
    expectError(wrong, 405, 'method_not_allowed')
    // the document that lists them, which ships with the package
    for (const {body} of [unknown, wrong]) expect(body.error.message).toContain('docs/api.md')
  })

  it('echoes a well-formed caller X-Request-Id and replaces a malformed one', async () => {
    const echoed = await sim.api('GET', '/v1/nope', {headers: {'x-request-id': 'pos-7f3a:retry=2'}})
    expect(echoed.headers.get('x-request-id')).toBe('pos-7f3a:retry=2')
    expect(echoed.body.error.request_id).toBe('pos-7f3a:retry=2')
    for (const bad of ['has space', 'x'.repeat(201), 'semi;colon']) {
      expect(
        (await sim.api('GET', '/v1/health', {headers: {'x-request-id': bad}})).headers.get('x-request-id'),
      ).toMatch(/^req_/)
    }
  })
})

describe('auth', () => {
  it('health needs no key', async () => {
    expect((await sim.api('GET', '/v1/health', {key: null})).body).toEqual({status: 'ok'})
  })

  it('a missing or unknown key is 401 unauthenticated with WWW-Authenticate', async () => {
    for (const key of [null, 'tp_test_unknown']) {
      const answer = await sim.api('GET', '/v1/checks', {key})
      expectError(answer, 401, 'unauthenticated')
      expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer/)
    }
    expectError(
      await sim.api('GET', '/v1/checks', {key: null, headers: {authorization: 'Basic dXNlcjpwYXNz'}}),
      401,
      'unauthenticated',
    )
  })

  it('a read key reads but cannot write: 403 insufficient_scope naming the scope', async () => {
    expect((await sim.api('GET', '/v1/checks', {key: READ_KEY})).status).toBe(200)
    for (const [method, path, body] of [
      ['PUT', '/v1/checks/external/r1', valid()],
      ['POST', '/v1/sim/reset', {}],
    ] as const) {
      const answer = await sim.api(method, path, {key: READ_KEY, body})
      expectError(answer, 403, 'insufficient_scope')
      expect(answer.body.error.message).toContain('"write"')
    }
    // a write no route takes is refused for that, which another key would not change
    expectError(await sim.api('POST', '/v1/nothing-here', {key: READ_KEY, body: {}}), 404, 'not_found')
    // the router gives an empty segment to a route's parameter: that write needs its scope too
    for (const [method, path] of [
      ['POST', '/v1/webhook-endpoints//test'],
      ['DELETE', '/v1/webhook-endpoints//'],
      ['POST', '/v1/sim/checks//claims'],
    ] as const)
      expectError(await sim.api(method, path, {key: READ_KEY, body: {}}), 403, 'insufficient_scope')
    await nothingStored()
  })

  it("one account never sees another account's check, claims or events", async () => {
    const mine = await sim.api('PUT', '/v1/checks/external/shared-id', {body: valid()})
    const [event] = (await sim.api('GET', '/v1/events')).body.data
    const claim = await sim.api('POST', `/v1/sim/checks/${mine.body.id}/claims`, {
      body: {items: [{external_id: 'a', quantity: 1}]},
    })
    const asOther = (method: string, path: string, body?: unknown) => sim.api(method, path, {key: OTHER_KEY, body})
    for (const path of [
      `/v1/checks/${mine.body.id}`,
      '/v1/checks/external/shared-id',
      `/v1/events/${event.id}`,
      `/v1/claims/${claim.body.id}`,
      `/v1/checks/${mine.body.id}/claims`,
    ]) {
      expectError(await asOther('GET', path), 404, 'not_found')
    }
    expectError(
      await asOther('POST', `/v1/sim/checks/${mine.body.id}/claims`, {items: [{external_id: 'a', quantity: 1}]}),
      404,
      'not_found',
    )
    expect((await asOther('GET', '/v1/checks')).body.data).toEqual([])
    expect((await asOther('GET', '/v1/events')).body.data).toEqual([])
    const theirs = await asOther('PUT', '/v1/checks/external/shared-id', {...valid(), location_id: 'loc_other_a'})
    expect(theirs.status).toBe(201)
    expect(theirs.body.id).not.toBe(mine.body.id)
    expectError(
      await asOther('PUT', '/v1/checks/external/x2', {...valid(), location_id: 'loc_main'}),
      422,
      'validation_failed',
    )
    await sim.api('POST', '/v1/sim/reset')
    await sim.api('POST', '/v1/sim/reset', {key: OTHER_KEY})
  })
})

describe('bad input gets a clear 4xx and stores nothing', () => {
  const put = (body: unknown, headers?: Record<string, string>) =>
    sim.api('PUT', '/v1/checks/external/bad', {body, headers})

  it.each([
    ['{"table":', 'a truncated document'],
    ['', 'an empty body'],
    ["{'single': 'quotes'}", 'single quotes'],
    ['NaN', 'a bare NaN'],
  ])('malformed JSON %j (%s) is 400 invalid_json', async (raw) => {
    expectError(await put(raw), 400, 'invalid_json')
    await nothingStored()
  })

  it('a body that starts with a byte order mark is 400 invalid_json naming the mark, not an invisible character', async () => {
    const answer = await put(`\uFEFF${JSON.stringify(valid())}`)
    expectError(answer, 400, 'invalid_json')
    expect(answer.body.error.message).toBe(
      'Request body is not valid JSON: it starts with a byte order mark (U+FEFF), which no JSON body may: save it as UTF-8 without one.',
    )
    await nothingStored()
  })

  const wrong: [string, (b: any) => void][] = [
    ['body', (b) => Object.keys(b).forEach((k) => delete b[k])],
    ['table', (b) => (b.table = '12')],
    ['table.number', (b) => (b.table.number = 12)],
    ['table.number', (b) => (b.table.number = '')],
    ['table.number', (b) => (b.table.number = 'x'.repeat(33))],
    ['status', (b) => (b.status = 'paid')],
    ['status', (b) => (b.status = null)],
    ['items', (b) => (b.items = {})],
    [
      'items',
      (b) =>
        (b.items = Array.from({length: 501}, (_, i) => ({
          external_id: `i${i}`,
          name: 'x',
          quantity: 1,
          price_cents: 0,
        }))),
    ],
    ['items.0', (b) => (b.items[0] = 'burger')],
    ['items.0.external_id', (b) => (b.items[0].external_id = 7)],
    ['items.0.external_id', (b) => (b.items[0].external_id = '')],
    ['items.1.external_id', (b) => b.items.push({...b.items[0]})],
    ['items.0.name', (b) => (b.items[0].name = null)],
    ['items.0.quantity', (b) => (b.items[0].quantity = '1')],
    ['items.0.quantity', (b) => (b.items[0].quantity = 0)],
    ['items.0.quantity', (b) => (b.items[0].quantity = 1.2345)],
    ['items.0.price_cents', (b) => (b.items[0].price_cents = 4.5)],
    ['items.0.price_cents', (b) => (b.items[0].price_cents = -1)],
    ['items.0.price_cents', (b) => (b.items[0].price_cents = 2 ** 60)],
    ['items.0.note', (b) => (b.items[0].note = 5)],
    ['items.0.note', (b) => (b.items[0].note = 'x'.repeat(501))],
    ['items.0', (b) => (b.items[0].colour = 'red')],
    ['totals', (b) => delete b.totals],
    ['totals.subtotal_cents', (b) => (b.totals.subtotal_cents = '500')],
    ['totals.tax_cents', (b) => (b.totals.tax_cents = -5)],
    ['totals.total_cents', (b) => (b.totals.total_cents += 1)],
    ['version', (b) => (b.version = 0)],
    ['version', (b) => (b.version = 1.5)],
    ['version', (b) => (b.version = '2')],
    ['location_id', (b) => (b.location_id = 5)],
    ['location_id', (b) => (b.location_id = 'loc_elsewhere')],
    ['body', (b) => (b.extra = true)],
  ]

  it.each(wrong)('a wrong %s is 422 validation_failed with that path in details', async (path, mutate) => {
    const body = valid() as any
    mutate(body)
    const answer = await put(body)
    expectError(answer, 422, 'validation_failed')
    const paths = answer.body.error.details.map((d: any) => d.path)
    expect(
      path === 'body' ? paths.length : paths.filter((p: string) => p === path || p.startsWith(`${path}.`)).length,
    ).toBeGreaterThan(0)
    await nothingStored()
  })

  it('names a field left out as required, with what it takes', async () => {
    const body = valid() as any
    delete body.table
    delete body.items[0].name
    const pushed = await put(body)
    expectError(pushed, 422, 'validation_failed')
    expect(pushed.body.error.details).toEqual([
      {path: 'table', message: 'Required: expected object'},
      {path: 'items.0.name', message: 'Required: expected string'},
    ])
    expect(pushed.body.error.message).toBe(
      'Request body failed validation: table: Required: expected object (and 1 more, see details).',
    )
    await nothingStored()
  })

  it('names an unknown field at its own path, in a body and in a query', async () => {
    const body = valid() as any
    body.items[0].colour = 'red'
    body.extra = true
    const pushed = await put(body)
    expectError(pushed, 422, 'validation_failed')
    expect(pushed.body.error.details).toEqual([
      {path: 'items.0.colour', message: 'unknown field'},
      {path: 'extra', message: 'unknown field'},
    ])
    const listed = await sim.api('GET', '/v1/checks?colour=red')
    expectError(listed, 422, 'validation_failed')
    expect(listed.body.error.details).toEqual([{path: 'colour', message: 'unknown field'}])
    expect(listed.body.error.message).toBe('Query failed validation: colour: unknown field.')
    await nothingStored()
  })

  it.each([
    '{"__proto__": {"admin": true}, "table": {"number": "1"}}',
    '{"table": {"number": "1", "__proto__": {"x": 1}}}',
    '{"constructor": {"prototype": {"x": 1}}}',
  ])('prototype keys %s are rejected as unknown fields and pollute nothing', async (raw) => {
    expectError(await put(raw), 422, 'validation_failed')
    expect(({} as any).admin).toBeUndefined()
    expect(({} as any).x).toBeUndefined()
    await nothingStored()
  })

  it('a write that takes no body refuses one that holds anything, and takes none or {}', async () => {
    const before = await sim.stored()
    const named = await sim.api('POST', '/v1/sim/accounts', {body: {name: 'x'}})
    expectError(named, 422, 'validation_failed')
    expect(named.body.error.details).toEqual([{path: 'name', message: 'unknown field'}])
    expectError(await sim.api('POST', '/v1/sim/accounts', {body: [1]}), 422, 'validation_failed')
    const text = await sim.api('POST', '/v1/sim/reset', {body: 'hello', headers: {'content-type': 'text/plain'}})
    expectError(text, 415, 'unsupported_media_type')
    expect(await sim.stored()).toBe(before)
    await sim.api('PUT', '/v1/checks/external/kept', {body: valid()})
    expect((await sim.api('GET', '/v1/checks')).body.data).toHaveLength(1)
    for (const body of [undefined, {}]) expect((await sim.api('POST', '/v1/sim/clock/reset', {body})).status).toBe(200)
    expect((await sim.api('POST', '/v1/sim/reset', {body: {}})).status).toBe(200)
    await nothingStored()
  })

  it('an empty body sent chunked or compressed is no body, as one left out is', async () => {
    // as a client that streams its body sends it: chunked, its length known only once read
    const streamed = (
      path: string,
      headers: Record<string, string> = {},
      body: RequestInit['body'] = new ReadableStream({start: (stream) => stream.close()}),
    ) =>
      fetch(`${sim.url}${path}`, {
        method: 'POST',
        headers: {authorization: `Bearer ${WRITE_KEY}`, ...headers},
        body,
        duplex: 'half',
      } as RequestInit)
    const types: Record<string, string>[] = [{}, {'content-type': 'application/json'}, {'content-type': 'text/plain'}]
    for (const headers of types) expect((await streamed('/v1/sim/clock/reset', headers)).status).toBe(200)
    const json = {'content-type': 'application/json'}
    expect((await streamed('/v1/sim/listen-secret', {...json, 'content-encoding': 'gzip'}, gzipSync(''))).status).toBe(
      200,
    )
    // a body that holds something is still read as one; a body the route needs is still needed
    const text = await streamed('/v1/sim/clock/reset', {'content-type': 'text/plain'}, 'x')
    expect([text.status, ((await text.json()) as {error: {code: string}}).error.code]).toEqual([
      415,
      'unsupported_media_type',
    ])
    const needed = await streamed('/v1/sim/clock/advance', json)
    expect([needed.status, ((await needed.json()) as {error: {message: string}}).error.message]).toEqual([
      400,
      'Request body is not valid JSON: the body is empty.',
    ])
  })

  it('a 2 MiB body is 413 payload_too_large, saying how much the route reads', async () => {
    const huge = JSON.stringify({
      ...valid(),
      items: [{external_id: 'a', name: 'x'.repeat(2 * 1024 * 1024), quantity: 1, price_cents: 1}],
    })
    const answer = await put(huge)
    expectError(answer, 413, 'payload_too_large')
    expect(answer.body.error.message).toBe(
      'Request body is larger than 1048576 bytes (1 MiB), the most this route reads (once decoded, when sent with Content-Encoding): send at most that.',
    )
    await nothingStored()
  })

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/jsonp'])(
    'Content-Type %s is 415 unsupported_media_type',
    async (type) => {
      expectError(await put(JSON.stringify(valid()), {'content-type': type}), 415, 'unsupported_media_type')
      await nothingStored()
    },
  )

  it('Content-Type is matched in any case and may carry parameters', async () => {
    expect((await put(JSON.stringify(valid()), {'content-type': 'Application/JSON; charset=UTF-8'})).status).toBe(201)
    await sim.api('POST', '/v1/sim/reset')
  })

  it.each(['has space', 'a'.repeat(65), 'semi;colon'])('an external id %j is 422 validation_failed', async (id) => {
    expectError(
      await sim.api('PUT', `/v1/checks/external/${encodeURIComponent(id)}`, {body: valid()}),
      422,
      'validation_failed',
    )
    await nothingStored()
  })

  it('a claim with bad input is 422 and changes nothing', async () => {
    const {body: check} = await sim.api('PUT', '/v1/checks/external/c1', {body: valid()})
    for (const body of [
      {items: []},
      {items: [{external_id: 'a', quantity: -1}]},
      {items: [{external_id: 'zzz', quantity: 1}]},
      {items: [{external_id: 'a'}]},
    ]) {
      expectError(await sim.api('POST', `/v1/sim/checks/${check.id}/claims`, {body}), 422, 'validation_failed')
    }
    expect((await sim.api('GET', `/v1/checks/${check.id}`)).body.items[0].claimed_quantity).toBe(0)
    await sim.api('POST', '/v1/sim/reset')
  })
})
