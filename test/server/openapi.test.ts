import {Ajv2020} from 'ajv/dist/2020.js'
import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import {OPERATIONS} from '../../src/server/operations.js'
import {openApiDocument} from '../../src/server/openapi.js'
import {checkWith} from '../helpers/checks.js'
import {doc} from '../helpers/openapi-doc.js'
import {type Received, startReceiver} from '../helpers/receiver.js'
import {type Answer, OTHER_KEY, READ_KEY, startTestServer, type TestServer} from '../helpers/simulator.js'

const DOC_ID = 'https://tablepay.test/openapi.json'
/** Headers any answer of an API route may carry: declared on its success and fault answers only (docs/api.md). */
const ANY_ANSWER_HEADER = /^(x-ratelimit-|x-tablepay-fault$|server-timing$)/
/** The headers the API sets itself (not HTTP's own, nor CORS's, which the document's description names). */
const OWN_HEADER =
  /^(x-tablepay-|x-ratelimit-|x-request-id$|retry-after$|server-timing$|www-authenticate$|allow$|idempotent-replayed$)/

describe('real answers match the document', () => {
  let server: TestServer
  let receiver: Awaited<ReturnType<typeof startReceiver>>
  const ajv = new Ajv2020({strict: false, validateSchema: false, allErrors: true})
  ajv.addFormat('date-time', {validate: (s: string) => !Number.isNaN(Date.parse(s))})
  ajv.addFormat('uri', {validate: (s: string) => URL.canParse(s)})
  ajv.addSchema(doc as object, DOC_ID)
  const exercised = new Set<string>()
  const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')

  /** The documented operation a concrete path belongs to: the one with the fewest parameters that matches. */
  function operationOf(method: string, path: string) {
    const bare = path.replace(/^\/v1/, '').split('?')[0]!
    const candidates = OPERATIONS.filter((op) => op.method === method.toLowerCase())
      .filter((op) => new RegExp(`^${op.path.replace(/\{\w+\}/g, '[^/]+').replace(/\./g, '\\.')}$`).test(bare))
      .sort((a, b) => a.path.split('{').length - b.path.split('{').length)
    return candidates[0]
  }

  /** One real call; its answer must be documented for its operation and status, and fit the schema there. */
  async function api(method: string, path: string, options: Parameters<TestServer['api']>[2] = {}): Promise<Answer> {
    const answer = await server.api(method, path, options)
    const op = operationOf(method, path)
    let schemaAt: string
    let documented: {headers?: Record<string, unknown>}
    if (!op) {
      // a path no route takes: only these two answers are documented for it, each as its own component
      const name = ({404: 'NotFound', 405: 'MethodNotAllowed'} as Record<number, string>)[answer.status]
      expect(name, `${method} ${path} answered ${answer.status}, which no route documents`).toBeDefined()
      schemaAt = pointer('', 'components', 'responses', name!, 'content', 'application/json', 'schema')
      documented = doc.components.responses[name!]!
      expect(documented).toBeDefined()
    } else {
      exercised.add(op.id)
      const documentedAnswer = doc.paths[op.path]![op.method]!.responses[String(answer.status)]
      expect(
        documentedAnswer,
        `${method} ${path} answered ${answer.status}: ${answer.text.slice(0, 300)}`,
      ).toBeDefined()
      // a shared answer is a $ref to #/components/responses/…: follow it
      const here = pointer('', 'paths', op.path, op.method, 'responses', String(answer.status))
      const at = documentedAnswer!.$ref?.slice(1) ?? here
      schemaAt = `${at}/content/application~1json/schema`
      const shared = documentedAnswer!.$ref?.replace('#/components/responses/', '')
      documented = shared ? doc.components.responses[shared]! : documentedAnswer!
    }
    const what = `${method} ${path} → ${answer.status}: ${answer.text.slice(0, 500)}`
    expect(mismatches(schemaAt, answer.body), what).toEqual([])
    // a client generated from the document reads only the headers declared where the answer is
    const declared = new Set(Object.keys(documented.headers ?? {}).map((name) => name.toLowerCase()))
    const faultOrSuccess = answer.status < 400 || ['rate_limited', 'simulated_fault'].includes(answer.body?.error?.code)
    const owed = (name: string) => OWN_HEADER.test(name) && (faultOrSuccess || !ANY_ANSWER_HEADER.test(name))
    const undeclared = [...answer.headers.keys()].filter((name) => owed(name) && !declared.has(name))
    expect(undeclared, what).toEqual([])
    return answer
  }

  /** What in `value` breaks the schema at `at`, a JSON pointer into the document: [] when it fits. */
  function mismatches(at: string, value: unknown) {
    const validate = ajv.getSchema(`${DOC_ID}#${at}`) ?? ajv.compile({$ref: `${DOC_ID}#${at}`})
    return validate(value) ? [] : (validate.errors ?? [{message: 'invalid'}])
  }

  const webhookBody = (name: string) =>
    pointer('', 'webhooks', name, 'post', 'requestBody', 'content', 'application/json', 'schema')
  const eventTypesOf = (name: string) =>
    doc.webhooks[name]!.post.parameters.find((p) => p.name === 'X-Tablepay-Event-Type')?.schema.enum

  beforeAll(async () => {
    server = await startTestServer({memory: true})
    receiver = await startReceiver()
  })
  afterAll(async () => {
    await receiver.close()
    await server.close()
  })

  test('for every operation, success and refusal alike', async () => {
    await api('GET', '/v1/health', {key: null})
    await api('GET', '/v1/openapi.json', {key: null})
    await api('GET', '/v1/locations')
    await api('GET', '/v1/locations', {key: null})
    await api('GET', '/v1/locations?limit=0')
    await api('GET', '/v1/nope')
    await api('DELETE', '/v1/checks')

    const body = checkWith(
      [
        ['l1', 2, 800],
        ['l2', 1, 300],
      ],
      {location_id: 'loc_main', version: 1},
    )
    const created = await api('PUT', '/v1/checks/external/oa-1', {body})
    expect(created.status).toBe(201)
    const check = created.body
    expect((await api('PUT', '/v1/checks/external/oa-1', {body})).status).toBe(200)
    expect((await api('PUT', '/v1/checks/external/oa-1', {body: {...body, status: 'closed'}})).status).toBe(409)
    expect((await api('PUT', '/v1/checks/external/oa-1', {body, key: READ_KEY})).status).toBe(403)
    expect((await api('PUT', '/v1/checks/external/oa-1', {body: '{"table":'})).status).toBe(400)
    expect(
      (await api('PUT', '/v1/checks/external/oa-1', {body: 'x', headers: {'content-type': 'text/plain'}})).status,
    ).toBe(415)
    expect((await api('PUT', '/v1/checks/external/oa-1', {body: `"${'x'.repeat(1_100_000)}"`})).status).toBe(413)
    expect((await api('PUT', '/v1/checks/external/oa-1', {body: {...body, status: 'paid'}})).status).toBe(422)
    expect((await api('PUT', '/v1/checks/external/has%20space', {body})).status).toBe(422)

    await api('GET', '/v1/checks')
    await api('GET', '/v1/checks?status=open&location_id=loc_main')
    await api('GET', `/v1/checks/${check.id}`)
    expect((await api('GET', `/v1/checks/${check.id}`, {key: OTHER_KEY})).status).toBe(404)
    await api('GET', '/v1/checks/external/oa-1')

    const claim = (
      await api('POST', `/v1/sim/checks/${check.id}/claims`, {body: {items: [{external_id: 'l1', quantity: 1}]}})
    ).body
    expect(
      (await api('POST', `/v1/sim/checks/${check.id}/claims`, {body: {items: [{external_id: 'l1', quantity: 5}]}}))
        .status,
    ).toBe(409)
    const removing = checkWith([['l2', 1, 300]], {version: 2})
    expect((await api('PUT', '/v1/checks/external/oa-1', {body: removing})).body.error.code).toBe(
      'conflict_with_paid_items',
    )
    await api('GET', `/v1/checks/${check.id}/claims`)
    await api('GET', `/v1/claims/${claim.id}`)

    const payment = (
      await api('POST', `/v1/sim/checks/${check.id}/payments`, {body: {amount_cents: 500, tip_cents: 50}})
    ).body
    expect((await api('POST', `/v1/sim/checks/${check.id}/payments`, {body: {amount_cents: 1_000_000}})).status).toBe(
      422,
    )
    expect(
      (await api('POST', `/v1/sim/checks/${check.id}/payments`, {body: {amount_cents: 100, simulate: 'decline'}}))
        .status,
    ).toBe(402)
    const keyed = {headers: {'idempotency-key': 'oa-pay-1'}}
    expect(
      (await api('POST', `/v1/sim/checks/${check.id}/payments`, {body: {amount_cents: 100}, ...keyed})).status,
    ).toBe(201)
    expect(
      (await api('POST', `/v1/sim/checks/${check.id}/payments`, {body: {amount_cents: 200}, ...keyed})).body.error.code,
    ).toBe('idempotency_key_reused')
    await api('GET', `/v1/checks/${check.id}/payments`)
    await api('GET', `/v1/payments/${payment.id}`)
    expect((await api('POST', `/v1/sim/payments/${payment.id}/refund`, {body: {amount_cents: 50}})).status).toBe(200)

    await api('POST', `/v1/sim/checks/${check.id}/feedback`, {body: {rating: 5, comment: 'Lovely'}})
    const feedback = (await api('GET', `/v1/checks/${check.id}/feedback`)).body.data[0]
    await api('GET', `/v1/feedback/${feedback.id}`)

    const closed = (
      await api('PUT', '/v1/checks/external/oa-2', {
        body: checkWith([['l1', 1, 100]], {location_id: 'loc_main', status: 'closed'}),
      })
    ).body
    expect(
      (await api('POST', `/v1/sim/checks/${closed.id}/claims`, {body: {items: [{external_id: 'l1', quantity: 1}]}}))
        .body.error.code,
    ).toBe('check_not_open')

    const events = (await api('GET', '/v1/events?type=check.created')).body
    await api('GET', `/v1/events/${events.data[0].id}`)

    const endpoint = (
      await api('POST', '/v1/webhook-endpoints', {body: {url: receiver.url, event_types: ['check.updated']}})
    ).body
    receiver.verifyWith(endpoint.secret)
    await api('GET', '/v1/webhook-endpoints')
    await api('GET', `/v1/webhook-endpoints/${endpoint.id}`)
    await api('POST', `/v1/webhook-endpoints/${endpoint.id}/test`)
    await api('PUT', '/v1/checks/external/oa-2', {body: checkWith([['l1', 1, 200]], {status: 'closed'})})
    await receiver.waitFor(2)
    const deliveries = (await api('GET', `/v1/deliveries?endpoint_id=${endpoint.id}`)).body
    await api('GET', `/v1/deliveries/${deliveries.data[0].id}`)
    await api('POST', `/v1/deliveries/${deliveries.data[0].id}/retry`)
    await api('GET', '/v1/sim/key')
    await api('GET', '/v1/sim/clock')
    await api('POST', '/v1/sim/clock/advance', {body: {seconds: 60}})
    await api('POST', '/v1/sim/clock/reset')
    // the receiver side: updates, rotation, resend, recovery, known secrets, chaos
    await api('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, {body: {event_types: ['check.updated', 'check.closed']}})
    receiver.verifyWith(
      (await api('POST', `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, {body: {}})).body.secret,
    )
    const updatedEvent = (await api('GET', '/v1/events?type=check.updated')).body.data[0]
    expect((await api('POST', `/v1/events/${updatedEvent.id}/resend`, {body: {endpoint_id: endpoint.id}})).status).toBe(
      201,
    )
    const createdEvent = events.data[0]
    expect(
      (await api('POST', `/v1/events/${createdEvent.id}/resend`, {body: {endpoint_id: endpoint.id}})).body.error.code,
    ).toBe('event_type_not_subscribed')
    const since = new Date(Date.now() - 3_600_000).toISOString()
    expect((await api('POST', `/v1/webhook-endpoints/${endpoint.id}/recover`, {body: {since}})).status).toBe(202)
    const known = 'whsec_openapi_known_secret_0123456789'
    receiver.verifyWith(known)
    const seeded = (
      await api('POST', '/v1/sim/webhook-endpoints', {
        body: {url: receiver.url, event_types: ['check.closed'], secret: known},
      })
    ).body
    await api('POST', '/v1/sim/listen-secret')
    await api('PUT', `/v1/sim/webhook-endpoints/${seeded.id}/chaos`, {body: {duplicate: 0.5, seed: 7}})
    await api('GET', `/v1/sim/webhook-endpoints/${seeded.id}/chaos`)
    await api('DELETE', `/v1/sim/webhook-endpoints/${seeded.id}/chaos`)
    await api('DELETE', `/v1/webhook-endpoints/${seeded.id}`)
    await api('DELETE', `/v1/webhook-endpoints/${endpoint.id}`)

    // the request log, and the answers faults give
    await api('GET', '/v1/sim/requests?status=4xx&method=put')
    const logged = (await api('GET', '/v1/sim/requests')).body.data[0]
    await api('GET', `/v1/sim/requests/${logged.id}`)
    expect((await api('GET', '/v1/sim/requests/req_nope')).status).toBe(404)
    expect((await api('POST', '/v1/sim/faults', {body: {status: 418}})).status).toBe(422)
    const always = (await api('POST', '/v1/sim/faults', {body: {status: 503, times: null}})).body
    await api('GET', '/v1/sim/faults')
    expect((await api('GET', '/v1/locations')).status).toBe(503)
    expect((await api('GET', '/v1/checks')).status).toBe(503)
    await api('DELETE', `/v1/sim/faults/${always.id}`)
    for (const status of [429, 500, 502, 504]) {
      await api('POST', '/v1/sim/faults', {body: {status}})
      expect((await api('PUT', '/v1/checks/external/oa-fault', {body})).status).toBe(status)
    }
    await api('POST', '/v1/sim/faults', {body: {status: 500, match: {path: '/v1/claims/clm_none'}}})
    await api('DELETE', '/v1/sim/faults')
    // a fault's delay, alone and with a status: Server-Timing says how long the answer was held
    for (const held of [{delay_ms: 1}, {delay_ms: 1, status: 429}, {delay_ms: 1, status: 503}]) {
      await api('POST', '/v1/sim/faults', {body: {...held, match: {path: '/v1/locations'}}})
      const answer = await api('GET', '/v1/locations')
      expect([answer.status, answer.headers.get('server-timing')]).toEqual([
        held.status ?? 200,
        expect.stringMatching(/^fault;dur=\d+$/),
      ])
    }

    // snapshots: every route, and their refusals
    await api('POST', '/v1/sim/snapshots', {body: {name: 'openapi'}})
    await api('GET', '/v1/sim/snapshots')
    await api('GET', '/v1/sim/snapshots/openapi')
    const exported = (await api('GET', '/v1/sim/snapshots/openapi/export')).body
    expect((await api('POST', '/v1/sim/snapshots/import', {body: {...exported, name: 'imported'}})).status).toBe(201)
    await api('POST', '/v1/sim/snapshots/imported/restore')
    await api('DELETE', '/v1/sim/snapshots/imported')
    expect((await api('GET', '/v1/sim/snapshots/Bad')).status).toBe(422)
    expect((await api('POST', '/v1/sim/snapshots/missing/restore')).status).toBe(404)
    // an import past the account's limit of webhook endpoints
    const at = new Date().toISOString()
    const many = Array.from({length: 101}, (_, i) => ({
      ...{
        id: `we_many_${i}`,
        object: 'webhook_endpoint',
        url: 'http://127.0.0.1:9/hooks',
        event_types: ['check.created'],
      },
      ...{description: '', status: 'enabled', created_at: at, updated_at: at, consecutive_dead: 0},
      secret: 'whsec_openapi_known_secret_0123456789',
    }))
    const tooMany = {...exported, name: 'many', records: {...exported.records, webhook_endpoints: many}}
    const refused = await api('POST', '/v1/sim/snapshots/import', {body: tooMany})
    expect([refused.status, refused.body.error.code], refused.text).toEqual([422, 'limit_reached'])

    const scratch = (await api('POST', '/v1/sim/accounts')).body
    await api('DELETE', `/v1/sim/accounts/${scratch.id}`)
    await api('POST', '/v1/sim/reset')

    // the stream never ends: its status and type are what can be checked
    const stream = await fetch(`${server.url}/v1/sim/stream`, {
      headers: {authorization: 'Bearer tp_test_demo_write'},
      signal: AbortSignal.timeout(5000),
    })
    expect([stream.status, stream.headers.get('content-type')]).toEqual([200, 'text/event-stream'])
    await stream.body!.cancel()
    exercised.add('streamEvents')

    expect([...exercised].sort()).toEqual(OPERATIONS.map((op) => op.id).sort())
  })

  test('a write that takes no body refuses one as every write does, with answers its operation lists', async () => {
    const plain = {body: 'x', headers: {'content-type': 'text/plain'}}
    for (const [method, path] of [
      ['POST', '/v1/sim/clock/reset'],
      ['DELETE', '/v1/sim/faults'],
    ] as const) {
      expect((await api(method, path, plain)).status).toBe(415)
      expect((await api(method, path, {body: '{'})).status).toBe(400)
      expect((await api(method, path, {body: `"${'x'.repeat(1_100_000)}"`})).status).toBe(413)
      expect((await api(method, path, {body: '{}', headers: {'content-encoding': 'zstd'}})).status).toBe(415)
    }
  })

  test('a ping delivery fits the ping webhook, not the event one; an event delivery fits the event one', async () => {
    const hooks = await startReceiver()
    const subscription = {url: hooks.url, event_types: ['check.created']}
    const endpoint = (await server.api('POST', '/v1/webhook-endpoints', {body: subscription})).body
    try {
      hooks.verifyWith(endpoint.secret)
      expect((await server.api('POST', `/v1/webhook-endpoints/${endpoint.id}/test`)).body.succeeded).toBe(true)
      const push = {body: checkWith([['l1', 1, 100]], {location_id: 'loc_main'})}
      await server.api('PUT', '/v1/checks/external/oa-hooks', push)
      await hooks.waitFor(2)
      const delivered = (r: Received) => ({type: r.headers['x-tablepay-event-type'], body: JSON.parse(r.body)})
      const [ping, created] = hooks.received.map(delivered)
      expect(ping!.type).toBe('ping')
      expect(eventTypesOf('ping')).toEqual(['ping'])
      expect(mismatches(webhookBody('ping'), ping!.body)).toEqual([])
      expect(mismatches(webhookBody('event'), ping!.body)).not.toEqual([])
      expect(eventTypesOf('event')).toContain(created!.type)
      expect(mismatches(webhookBody('event'), created!.body)).toEqual([])
      expect(created!.body.data.object).toBe('check')
      // data must be a resource: an untyped object no longer fits
      expect(mismatches(webhookBody('event'), {...created!.body, data: {anything: 1}})).not.toEqual([])
    } finally {
      await server.api('DELETE', `/v1/webhook-endpoints/${endpoint.id}`)
      await hooks.close()
    }
  })

  test('a replayed guest action answers Idempotent-Replayed: true, a header its operation documents', async () => {
    const push = {body: checkWith([['l1', 1, 900]], {location_id: 'loc_main'})}
    const check = (await server.api('PUT', '/v1/checks/external/oa-replay', push)).body
    const keyed = {body: {amount_cents: 100}, headers: {'idempotency-key': 'oa-replay-1'}}
    const pay = () => api('POST', `/v1/sim/checks/${check.id}/payments`, keyed)
    const first = await pay()
    const replay = await pay()
    expect([first.status, first.headers.get('idempotent-replayed')]).toEqual([201, null])
    expect([replay.status, replay.headers.get('idempotent-replayed')]).toEqual([201, 'true'])
    const documented = doc.paths['/sim/checks/{id}/payments']!.post!.responses['201']!.headers!['Idempotent-Replayed']
    expect(documented).toEqual({$ref: '#/components/headers/IdempotentReplayed'})
    expect((doc.components as any).headers.IdempotentReplayed).toMatchObject({schema: {type: 'string', enum: ['true']}})
  })

  test('the server serves the document at GET /v1/openapi.json without a key, naming itself', async () => {
    const answer = await server.api('GET', '/v1/openapi.json', {key: null})
    expect(answer.status).toBe(200)
    expect(answer.body).toEqual(openApiDocument(server.url))
    expect(answer.body.servers).toEqual([{url: `${server.url}/v1`}])
  })
})
