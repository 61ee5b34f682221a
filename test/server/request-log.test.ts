import {connect} from 'node:net'
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import {TablepayClient} from '../../src/client/client.js'
import type {AccessLine} from '../../src/domain/request-log.js'
import {checkWith} from '../helpers/checks.js'
import {OTHER_KEY, startTestServer, type TestServer, WRITE_KEY} from '../helpers/simulator.js'

let sim: TestServer
const access: AccessLine[] = []
beforeAll(async () => {
  sim = await startTestServer({memory: true, serve: {accessLog: (line) => access.push(line)}})
})
afterAll(() => sim.close())
beforeEach(async () => {
  expect((await sim.api('POST', '/v1/sim/reset')).status).toBe(200)
})

const push = (externalId: string, body: unknown, headers: Record<string, string> = {}) =>
  sim.api('PUT', `/v1/checks/external/${externalId}`, {body, headers})
const entry = async (requestId: string) => {
  const answer = await sim.api('GET', `/v1/sim/requests/${requestId}`)
  expect(answer.status).toBe(200)
  return answer.body
}
const requestIdOf = (answer: {headers: Headers}) => answer.headers.get('x-request-id')!

describe('the request log', () => {
  it('records every field of a created push', async () => {
    const body = checkWith([['a', 1, 1200]], {version: 1})
    const created = await push('rl1', body, {'x-request-id': 'pos-run-1'})
    expect(created.status).toBe(201)
    const logged = await entry('pos-run-1')
    expect(logged).toEqual({
      id: 'pos-run-1',
      object: 'request',
      method: 'PUT',
      path: '/v1/checks/external/rl1',
      query: {},
      status: 201,
      duration_ms: expect.any(Number),
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      key_hint: 'tp_test_…rite',
      idempotency_key: null,
      push_result: 'created',
      error: null,
      check_id: created.body.id,
      fault_id: null,
      request_body: body,
      request_body_truncated: false,
      response_body: created.body,
      response_body_truncated: false,
      changes: null,
    })
    expect(logged.duration_ms).toBeGreaterThanOrEqual(0)
    expect(JSON.stringify(logged)).not.toContain(WRITE_KEY)
  })

  it('logs each replay with the body it was sent, also the ones answered from the text kept for the check', async () => {
    const body = checkWith([['a', 2, 450]], {version: 3})
    const answers = []
    for (let i = 0; i < 3; i++) answers.push(await push('rl-replay', body))
    // the second is parsed and kept as the check's replay, the third is answered from that text (docs/benchmarks.md)
    expect(answers.map((a) => a.headers.get('x-tablepay-push-result'))).toEqual(['created', 'unchanged', 'unchanged'])
    const other = checkWith([['b', 1, 100]], {version: 1})
    await push('rl-other', other)
    await push('rl-other', other)
    const replayed = await push('rl-other', other)
    for (const answer of answers)
      expect(await entry(requestIdOf(answer))).toMatchObject({request_body: body, query: {}})
    expect(await entry(requestIdOf(replayed))).toMatchObject({request_body: other, push_result: 'unchanged'})
    const read = await sim.api('GET', '/v1/checks/external/rl-replay')
    expect(await entry(requestIdOf(read))).toMatchObject({check_id: answers[0]!.body.id, response_body: read.body})
  })

  it('finds a caller id holding "/" by its percent-encoded form, through the API and the client, and "." through the list', async () => {
    await sim.api('GET', '/v1/locations', {headers: {'x-request-id': 'trace/42+a'}})
    expect((await entry(encodeURIComponent('trace/42+a'))).id).toBe('trace/42+a')
    const client = new TablepayClient({url: sim.url, apiKey: WRITE_KEY})
    expect((await client.getRequest('trace/42+a')).path).toBe('/v1/locations')
    // echoed as DESIGN says, though `GET /sim/requests/.` is a dot segment, which names no route
    const dot = await sim.api('GET', '/v1/checks?limit=3', {headers: {'x-request-id': '.'}})
    expect(requestIdOf(dot)).toBe('.')
    const listed = await sim.api('GET', '/v1/sim/requests?limit=100')
    expect(listed.body.data.find((logged: {id: string}) => logged.id === '.')).toMatchObject({query: {limit: '3'}})
  })

  it('records an updated push with what moved, and unchanged and stale pushes with their result', async () => {
    const first = await push(
      'rl2',
      checkWith(
        [
          ['a', 1, 1200],
          ['b', 2, 300],
        ],
        {version: 1},
      ),
    )
    const moved = checkWith(
      [
        ['a', 1, 1500, 'no salt'],
        ['c', 1, 800],
      ],
      {version: 2, status: 'closed'},
    )
    const updated = await push('rl2', moved)
    expect(await entry(requestIdOf(updated))).toMatchObject({
      status: 200,
      push_result: 'updated',
      check_id: first.body.id,
      changes: {
        status: ['open', 'closed'],
        totals: [first.body.totals, updated.body.totals],
        items: {
          added: ['c'],
          removed: ['b'],
          changed: [{external_id: 'a', fields: {price_cents: [1200, 1500], note: [null, 'no salt']}}],
        },
      },
    })
    const unchanged = await push('rl2', moved)
    expect(await entry(requestIdOf(unchanged))).toMatchObject({
      status: 200,
      push_result: 'unchanged',
      check_id: first.body.id,
      changes: null,
      error: null,
    })
    const stale = await push('rl2', checkWith([['a', 1, 1200]], {version: 1}))
    expect(await entry(requestIdOf(stale))).toMatchObject({
      status: 200,
      push_result: 'stale',
      check_id: first.body.id,
      changes: null,
    })
  })

  it("logs a request Node refuses in its body under the answer's X-Request-Id, with its refusal", async () => {
    const {hostname, port} = new URL(sim.url)
    // a body framed by a coding Node cannot read: the app runs the request, then the parser refuses the rest
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(Number(port), hostname)
      let text = ''
      socket.on('data', (chunk) => (text += chunk))
      socket.on('close', () => resolve(text))
      socket.write(
        `POST /v1/sim/reset HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${WRITE_KEY}\r\n` +
          'Content-Type: application/json\r\nTransfer-Encoding: gzip\r\n\r\n',
      )
    })
    expect(answer.split(' ')[1]).toBe('400')
    const id = /\r\nx-request-id: (req_\w+)\r\n/i.exec(answer)![1]!
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).error.request_id).toBe(id)
    // logged once the app has seen its body end, which may come just after the answer
    await expect.poll(async () => (await sim.api('GET', `/v1/sim/requests/${id}`)).status).toBe(200)
    // the refusal the client got, not the cut-off body the app saw after it
    expect(await entry(id)).toMatchObject({
      id,
      method: 'POST',
      path: '/v1/sim/reset',
      status: 400,
      error: {code: 'malformed_request'},
    })
  })

  it('records a 409 and a 422 push with their error and the body as sent', async () => {
    const first = await push('rl3', checkWith([['a', 1, 1200]], {version: 3}))
    const conflicting = checkWith([['a', 1, 999]], {version: 3})
    const conflict = await push('rl3', conflicting)
    expect(conflict.status).toBe(409)
    expect(await entry(requestIdOf(conflict))).toMatchObject({
      status: 409,
      push_result: null,
      check_id: first.body.id,
      error: {code: 'version_conflict', message: conflict.body.error.message},
      request_body: conflicting,
      response_body: conflict.body,
      changes: null,
    })
    const invalid = await sim.api('PUT', '/v1/checks/external/rl3-new', {body: '{"table": {"number": ""}, "oops": 1}'})
    expect(invalid.status).toBe(422)
    expect(await entry(requestIdOf(invalid))).toMatchObject({
      status: 422,
      push_result: null,
      check_id: null,
      error: {code: 'validation_failed'},
      request_body: {table: {number: ''}, oops: 1},
      response_body: {error: {code: 'validation_failed', details: expect.any(Array)}},
    })
    const notJson = await sim.api('PUT', '/v1/checks/external/rl3-new', {body: 'not json at all'})
    expect(await entry(requestIdOf(notJson))).toMatchObject({status: 400, request_body: 'not json at all'})
  })

  it('records guest actions with their check, idempotency key, body and answer', async () => {
    const check = (await push('rl4', checkWith([['a', 2, 1000]]))).body
    const claim = await sim.api('POST', `/v1/sim/checks/${check.id}/claims`, {
      body: {items: [{external_id: 'a', quantity: 1}]},
      headers: {'idempotency-key': 'claim-1'},
    })
    expect(claim.status).toBe(201)
    expect(await entry(requestIdOf(claim))).toMatchObject({
      method: 'POST',
      path: `/v1/sim/checks/${check.id}/claims`,
      status: 201,
      idempotency_key: 'claim-1',
      check_id: check.id,
      push_result: null,
      request_body: {items: [{external_id: 'a', quantity: 1}]},
      response_body: claim.body,
    })
    const payment = await sim.api('POST', `/v1/sim/checks/${check.id}/payments`, {body: {amount_cents: 500}})
    const refund = await sim.api('POST', `/v1/sim/payments/${payment.body.id}/refund`, {body: {amount_cents: 9999}})
    expect(refund.status).toBe(422)
    expect(await entry(requestIdOf(payment))).toMatchObject({status: 201, check_id: check.id})
    expect(await entry(requestIdOf(refund))).toMatchObject({
      status: 422,
      error: {code: 'amount_exceeds_balance'},
      check_id: null,
    })
  })

  it('never keeps a secret: no entry holds a whsec_ value, and the key is only hinted', async () => {
    const created = await sim.api('POST', '/v1/webhook-endpoints', {
      body: {url: 'http://127.0.0.1:9/hook', event_types: ['check.created']},
    })
    expect(created.body.secret).toMatch(/^whsec_/)
    await sim.api('GET', `/v1/webhook-endpoints/${created.body.id}`)
    await sim.api('POST', '/v1/webhook-endpoints', {
      body: {url: 'http://127.0.0.1:9/x', secret: 'whsec_mine', event_types: []},
    })
    const list = (await sim.api('GET', '/v1/sim/requests?limit=100')).body.data
    expect(list.map((e: {path: string}) => e.path)).toEqual([
      '/v1/webhook-endpoints',
      `/v1/webhook-endpoints/${created.body.id}`,
      '/v1/webhook-endpoints',
      '/v1/sim/reset',
    ])
    const logged = list.find((e: {id: string}) => e.id === requestIdOf(created))
    expect(logged.response_body.secret).toBe('[redacted]')
    for (const one of list) {
      const text = JSON.stringify(one) + JSON.stringify(await entry(one.id))
      expect(text).not.toContain('whsec_')
      expect(text).not.toContain(WRITE_KEY)
    }
  })

  it('cuts bodies at 64 KiB and says so', async () => {
    const lines = Array.from(
      {length: 400},
      (_, i) => [`item-${i}`, 1, 100, 'n'.repeat(200)] as [string, number, number, string],
    )
    const big = checkWith(lines)
    const answer = await push('rl5', big)
    expect(answer.status).toBe(201)
    const logged = await entry(requestIdOf(answer))
    expect(logged.request_body_truncated).toBe(true)
    expect(logged.response_body_truncated).toBe(true)
    expect(logged.request_body).toBe(JSON.stringify(big).slice(0, 64 * 1024))
    expect((logged.response_body as string).length).toBe(64 * 1024)
  })

  it('lists newest first with filters: status or class, method, path prefix or pattern, check id, error code', async () => {
    const ok = await push('rl6', checkWith([['a', 1, 100]]))
    const bad = await push('rl6', {nope: true})
    const read = await sim.api('GET', `/v1/checks/${ok.body.id}`)
    const ids = async (query: string) =>
      (await sim.api('GET', `/v1/sim/requests${query}`)).body.data.map((e: {id: string}) => e.id)
    expect(await ids('?path=/v1/checks')).toEqual([read, bad, ok].map(requestIdOf))
    expect(await ids('?status=4xx')).toEqual([requestIdOf(bad)])
    expect(await ids('?status=422')).toEqual([requestIdOf(bad)])
    expect(await ids('?status=2xx&method=get')).toEqual([requestIdOf(read)])
    expect(await ids('?path=/v1/checks/external/')).toEqual([bad, ok].map(requestIdOf))
    // a pattern as a fault's match takes: * one segment, ** the rest
    expect(await ids('?path=/v1/checks/external/*')).toEqual([bad, ok].map(requestIdOf))
    expect(await ids('?path=/v1/checks/*')).toEqual([requestIdOf(read)])
    expect(await ids('?path=/v1/checks/**')).toEqual([read, bad, ok].map(requestIdOf))
    expect(await ids(`?check_id=${ok.body.id}`)).toEqual([read, ok].map(requestIdOf))
    expect(await ids('?error_code=validation_failed')).toEqual([requestIdOf(bad)])
    const page = (await sim.api('GET', '/v1/sim/requests?limit=2&path=/v1/checks')).body
    expect(page).toMatchObject({object: 'list', has_more: true, next_cursor: requestIdOf(bad)})
    expect(await ids(`?path=/v1/checks&starting_after=${page.next_cursor}`)).toEqual([requestIdOf(ok)])
    expect((await sim.api('GET', '/v1/sim/requests?status=abc')).status).toBe(422)
    // a pattern by a fault's rules: ** only last, a leading /
    for (const path of ['/v1/**/claims', 'v1/*'])
      expect((await sim.api('GET', `/v1/sim/requests?path=${path}`)).body.error, path).toMatchObject({
        code: 'validation_failed',
        details: [{path: 'path', message: expect.any(String)}],
      })
  })

  it('keeps the last 1,000 requests of an account: the 1,001st evicts the 1st', async () => {
    const first = await sim.api('GET', '/v1/locations', {headers: {'x-request-id': 'first-of-many'}})
    expect(first.status).toBe(200)
    for (let i = 0; i < 999; i++) await sim.api('GET', '/v1/locations')
    expect((await sim.api('GET', '/v1/sim/requests/first-of-many')).status).toBe(200)
    await sim.api('GET', '/v1/locations', {headers: {'x-request-id': 'the-1001st'}})
    expect((await sim.api('GET', '/v1/sim/requests/first-of-many')).status).toBe(404)
    expect((await sim.api('GET', '/v1/sim/requests/the-1001st')).status).toBe(200)
  }, 30_000)

  it('shows an account none of another account’s requests', async () => {
    const mine = await push('rl7', checkWith([['a', 1, 100]]))
    const theirs = await sim.api('GET', '/v1/locations', {key: OTHER_KEY})
    expect((await sim.api('GET', `/v1/sim/requests/${requestIdOf(mine)}`, {key: OTHER_KEY})).status).toBe(404)
    const seen = (await sim.api('GET', '/v1/sim/requests', {key: OTHER_KEY})).body.data.map((e: {id: string}) => e.id)
    expect(seen).toEqual([requestIdOf(theirs)])
  })

  it('leaves out the log’s own reads and health; reset clears it and is the first entry after', async () => {
    await sim.api('GET', '/v1/health', {key: null})
    await sim.api('GET', '/v1/sim/requests')
    const paths = async () => (await sim.api('GET', '/v1/sim/requests')).body.data.map((e: {path: string}) => e.path)
    expect(await paths()).toEqual(['/v1/sim/reset'])
    await push('rl8', checkWith([['a', 1, 100]]))
    expect((await sim.api('POST', '/v1/sim/reset')).status).toBe(200)
    expect(await paths()).toEqual(['/v1/sim/reset'])
  })

  it('leaves out requests marked X-Tablepay-Client: dashboard, cli-tail or scenario, in the log and the access line; another value is logged', async () => {
    const from = access.length
    const pushed = await push('rl-own', checkWith([['a', 1, 100]]))
    for (const client of ['dashboard', 'cli-tail', 'scenario']) {
      const headers = {'x-tablepay-client': client}
      expect((await sim.api('GET', '/v1/checks?limit=5', {headers})).status).toBe(200)
      expect((await sim.api('GET', `/v1/checks/${pushed.body.id}`, {headers})).status).toBe(200)
      expect((await sim.api('GET', '/v1/checks/external/rl-nothing', {headers})).status).toBe(404)
    }
    const other = await sim.api('GET', '/v1/locations', {headers: {'x-tablepay-client': 'my-script'}})
    expect(access.slice(from).map((line) => line.request_id)).toEqual([requestIdOf(pushed), requestIdOf(other)])
    const logged = (await sim.api('GET', '/v1/sim/requests')).body.data.map((e: {path: string}) => e.path)
    expect(logged).toEqual(['/v1/locations', '/v1/checks/external/rl-own', '/v1/sim/reset'])
  })

  it('sends a request message on /v1/sim/stream for each logged request', async () => {
    const client = new TablepayClient({url: sim.url, apiKey: WRITE_KEY})
    const stop = new AbortController()
    const messages = await client.openRequestStream({signal: stop.signal})
    const answer = await push('rl9', {bad: 1})
    const next = await messages.next()
    stop.abort()
    expect(next.value).toMatchObject({type: 'request', data: {id: requestIdOf(answer), status: 422, object: 'request'}})
  })

  it('shows a body nested deeper than any of the API as its text, on the stream and when read', async () => {
    const client = new TablepayClient({url: sim.url, apiKey: WRITE_KEY})
    const stop = new AbortController()
    const messages = await client.openRequestStream({signal: stop.signal})
    // written out as parsed JSON, an entry nested some thousands deep overflowed the stack and ended the server
    for (const levels of [1000, 5000]) {
      const deep = `${'['.repeat(levels)}${']'.repeat(levels)}`
      const answer = await sim.api('POST', '/v1/sim/faults', {body: deep})
      expect(answer.status).toBe(422)
      const shown = {request_body: deep, request_body_truncated: false}
      expect((await messages.next()).value).toMatchObject({type: 'request', data: {id: requestIdOf(answer), ...shown}})
      expect(await entry(requestIdOf(answer))).toMatchObject(shown)
    }
    stop.abort()
    expect((await sim.api('GET', '/v1/health')).status).toBe(200)
  })
})

describe('serve --request-log', () => {
  it("0 records nothing, and the log's routes say it is off and how to turn it on, rather than answer an empty log", async () => {
    const off = await startTestServer({memory: true, serve: {requestLog: 0}})
    try {
      const pushed = await off.api('PUT', '/v1/checks/external/x', {body: checkWith([['a', 1, 100]])})
      for (const path of ['/v1/sim/requests', `/v1/sim/requests/${requestIdOf(pushed)}`]) {
        const answer = await off.api('GET', path)
        expect(answer.status).toBe(404)
        expect(answer.body.error.code).toBe('not_found')
        expect(answer.body.error.message).toMatch(/request log is off .*--request-log N/)
      }
    } finally {
      await off.close()
    }
  })

  it('N keeps the last N', async () => {
    const small = await startTestServer({memory: true, serve: {requestLog: 2}})
    try {
      for (const id of ['r1', 'r2', 'r3']) await small.api('GET', '/v1/locations', {headers: {'x-request-id': id}})
      const ids = (await small.api('GET', '/v1/sim/requests')).body.data.map((e: {id: string}) => e.id)
      expect(ids).toEqual(['r3', 'r2'])
    } finally {
      await small.close()
    }
  })

  it('walks every entry once, to the end, when a caller sent one X-Request-Id several times', async () => {
    for (const limit of [1, 2, 3, 4, 5, 6])
      await sim.api('GET', `/v1/locations?limit=${limit}`, {headers: {'x-request-id': 'sent-twice'}})
    await sim.api('GET', '/v1/locations?limit=7', {headers: {'x-request-id': 'sent-once'}})
    const walked: string[] = []
    let cursor = ''
    for (let pages = 0; pages < 10; pages++) {
      const page = await sim.api('GET', `/v1/sim/requests?limit=2&path=/v1/locations${cursor}`)
      expect(page.status).toBe(200)
      walked.push(...page.body.data.map((e: {query: {limit: string}}) => e.query.limit))
      if (!page.body.has_more) break
      cursor = `&starting_after=${encodeURIComponent(page.body.next_cursor)}`
    }
    expect(walked).toEqual(['7', '6', '5', '4', '3', '2', '1'])
  })

  it('ends a walk whose cursor dropped out of the log, and refuses a cursor it never held', async () => {
    const small = await startTestServer({memory: true, serve: {requestLog: 2}})
    try {
      const list = (query: string) => small.api('GET', `/v1/sim/requests${query}`)
      for (const id of ['r1', 'r2', 'r3', 'r4', 'r5'])
        await small.api('GET', '/v1/locations', {headers: {'x-request-id': id}})
      // r1 and r2 are gone: paging on from either is past the end
      for (const gone of ['r1', 'r2']) {
        const page = await list(`?starting_after=${gone}`)
        expect(page.status).toBe(200)
        expect(page.body).toEqual({object: 'list', data: [], has_more: false, next_cursor: null})
      }
      const unknown = await list('?starting_after=never-sent')
      expect(unknown.status).toBe(422)
      expect(unknown.body.error).toMatchObject({
        code: 'validation_failed',
        details: [{path: 'starting_after', message: expect.stringContaining('next_cursor')}],
      })
      // a reset drops the whole log: its cursors end the walk too
      expect((await small.api('POST', '/v1/sim/reset')).status).toBe(200)
      expect((await list('?starting_after=r5')).body.data).toEqual([])
    } finally {
      await small.close()
    }
  })
})
