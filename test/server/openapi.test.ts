import {execFile} from 'node:child_process'
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {Validator} from '@seriousme/openapi-schema-validator'
import {Ajv2020} from 'ajv/dist/2020.js'
import type {Router} from 'h3'
import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import {ERROR_STATUS, type ErrorCode} from '../../src/domain/errors.js'
import {registerRoutes} from '../../src/server/app.js'
import {ERROR_MEANINGS} from '../../src/server/openapi-errors.js'
import {OPERATIONS} from '../../src/server/operations.js'
import {openApiDocument} from '../../src/server/openapi.js'
import {createService} from '../../src/server/service.js'
import {Store} from '../../src/store/store.js'
import {checkWith} from '../helpers/checks.js'
import {ROOT} from '../helpers/cli.js'
import {type Received, startReceiver} from '../helpers/receiver.js'
import {type Answer, OTHER_KEY, READ_KEY, startTestServer, type TestServer} from '../helpers/simulator.js'

type Doc = {
  paths: Record<string, Record<string, {responses: Record<string, Response>}>>
  webhooks: Record<string, {post: {parameters: {name: string; schema: {enum?: string[]}}[]}}>
  components: {responses: Record<string, Response>; schemas: Record<string, any>}
}
type Response = {$ref?: string; content?: Record<string, {schema: unknown}>; headers?: Record<string, unknown>}

const doc = openApiDocument('http://127.0.0.1:4747') as unknown as Doc
const DOC_ID = 'https://tablepay.test/openapi.json'

/** `/v1/checks/:id` as the document writes it: `/checks/{id}`. */
const documented = (routerPath: string) => routerPath.replace(/^\/v1/, '').replace(/:(\w+)/g, '{$1}')

/** The /v1 routes createApp registers, read off a router that only records. */
async function registeredRoutes(): Promise<string[]> {
  const store = await Store.open()
  const server = await createService(store, 'http://127.0.0.1:4747', {})
  const routes: string[] = []
  const record = (method: string) => (path: string) => routes.push(`${method.toUpperCase()} ${path}`)
  const router = new Proxy({}, {get: (_, method: string) => record(method)}) as unknown as Router
  const {service, dispatcher, streams} = server
  registerRoutes(router, {
    service,
    baseUrl: 'http://127.0.0.1:4747',
    now: service.context.now,
    clock: dispatcher.clock,
    dispatcher,
    streams,
  })
  await server.close()
  return routes.filter((route) => route.includes(' /v1/'))
}

test('the document is valid OpenAPI 3.1', async () => {
  const result = await new Validator().validate(doc as Parameters<Validator['validate']>[0])
  expect(result.errors).toBeUndefined()
  expect(result.valid).toBe(true)
})

/**
 * Warnings redocly's recommended rules raise that the API cannot avoid:
 * `/checks/external/{external_check_id}` and `/checks/{id}/…` both match
 * `/checks/external/claims` (the literal wins; check ids start with `chk_`);
 * the two public reads have no 4xx answer; and a 405 answers a method a path
 * does not take, which no operation can describe.
 */
const ACCEPTED_WARNINGS = [
  'no-ambiguous-paths #/paths/~1checks~1{id}~1claims',
  'no-ambiguous-paths #/paths/~1checks~1{id}~1feedback',
  'no-ambiguous-paths #/paths/~1checks~1{id}~1payments',
  'no-unused-components #/components/responses/MethodNotAllowed',
  'operation-4xx-response #/paths/~1health/get/responses',
  'operation-4xx-response #/paths/~1health/head/responses',
  'operation-4xx-response #/paths/~1openapi.json/get/responses',
  'operation-4xx-response #/paths/~1openapi.json/head/responses',
]

test('redocly lint finds no error in the document, and no warning but the accepted ones', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tablepay-openapi-'))
  try {
    const file = join(dir, 'openapi.json')
    await writeFile(file, JSON.stringify(doc))
    // redocly exits 1 on errors: read its report either way
    const redocly = join(ROOT, 'test/node_modules/.bin/redocly')
    const run = promisify(execFile)(redocly, ['lint', file, '--format=json'], {cwd: dir})
    const {stdout} = await run.catch((error: {stdout: string}) => error)
    type Problem = {ruleId: string; severity: string; message: string; location: {pointer: string}[]}
    const {problems} = JSON.parse(stdout) as {problems: Problem[]}
    const described = (p: Problem) => `${p.ruleId} ${p.location[0]?.pointer}`
    expect(problems.filter((p) => p.severity === 'error').map((p) => `${described(p)}: ${p.message}`)).toEqual([])
    expect(problems.map(described).sort()).toEqual(ACCEPTED_WARNINGS)
  } finally {
    await rm(dir, {recursive: true, force: true})
  }
}, 30_000)

test("an event's data is one of the resources, told apart by its object", () => {
  const refs = ['Check', 'Claim', 'Payment', 'Feedback'].map((name) => ({$ref: `#/components/schemas/${name}`}))
  expect(doc.components.schemas.Event.properties.data.oneOf).toEqual(refs)
  expect(doc.components.schemas.PingEvent.properties.type).toEqual({type: 'string', const: 'ping'})
})

test('every /v1 route registered on the router is in the document, with HEAD beside each GET, and nothing else is', async () => {
  const registered = (await registeredRoutes()).flatMap((route) => {
    const [method, path] = route.split(' ')
    // the route table answers HEAD on every GET route (server/internal/route-table.ts)
    return (method === 'GET' ? ['GET', 'HEAD'] : [method]).map((m) => `${m} ${documented(path!)}`)
  })
  const inDocument = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((key) => key !== 'parameters')
      .map((method) => `${method.toUpperCase()} ${path}`),
  )
  expect(registered.length).toBeGreaterThan(0)
  expect(inDocument.sort()).toEqual(registered.sort())
})

test('the document stays under 250 KB pretty-printed: error answers, headers and parameters are shared', () => {
  expect(Buffer.byteLength(JSON.stringify(doc, null, 2))).toBeLessThanOrEqual(250_000)
})

test('every GET has its HEAD operation: the same statuses and headers, and no body', () => {
  const resolved = (answer: Response) =>
    answer.$ref ? doc.components.responses[answer.$ref.split('/').pop()!]! : answer
  const gets = Object.entries(doc.paths).filter(([, item]) => item.get)
  expect(gets.length).toBeGreaterThan(20)
  for (const [path, {get, head}] of gets) {
    expect(head, path).toBeDefined()
    expect(Object.keys(head!.responses), path).toEqual(Object.keys(get!.responses))
    for (const [status, answer] of Object.entries(head!.responses)) {
      expect(resolved(answer).content, `${path} ${status}`).toBeUndefined()
      expect(resolved(answer).headers, `${path} ${status}`).toEqual(resolved(get!.responses[status]!).headers)
    }
  }
})

test('every error code of the API is in the document, with what it means', () => {
  const documentedCodes = new Set(
    [...JSON.stringify(doc).matchAll(/"code":\{"enum":\[([^\]]*)\]/g)].flatMap(
      (m) => JSON.parse(`[${m[1]}]`) as string[],
    ),
  )
  for (const code of Object.keys(ERROR_STATUS) as ErrorCode[]) {
    expect(ERROR_MEANINGS[code], code).toBeTypeOf('string')
    expect(documentedCodes.has(code), code).toBe(true)
  }
})

test('every API route documents the 429 and 5xx a fault or the rate limit gives, with their headers; /sim routes do not', () => {
  const push = doc.paths['/checks/external/{external_check_id}']!.put!.responses as Record<string, any>
  for (const status of ['429', '500', '502', '503', '504']) expect(push[status], status).toBeDefined()
  const shared = (answer: {$ref: string}) => doc.components.responses[answer.$ref.split('/').pop()!] as any
  expect(Object.keys(shared(push['503']).headers)).toEqual(expect.arrayContaining(['Retry-After', 'X-Tablepay-Fault']))
  expect(Object.keys(push['201'].headers)).toEqual(
    expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-Tablepay-Fault', 'Server-Timing']),
  )
  const simReset = doc.paths['/sim/reset']!.post!.responses as Record<string, any>
  expect(simReset['502']).toBeUndefined()
  expect(Object.keys(simReset['200'].headers)).not.toContain('X-RateLimit-Limit')
})

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
    if (!op) {
      const name = answer.status === 405 ? 'MethodNotAllowed' : 'NotFound'
      schemaAt = pointer('', 'components', 'responses', name, 'content', 'application/json', 'schema')
      expect(doc.components.responses[name]).toBeDefined()
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
    }
    const what = `${method} ${path} → ${answer.status}: ${answer.text.slice(0, 500)}`
    expect(mismatches(schemaAt, answer.body), what).toEqual([])
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
    await api('POST', '/v1/sim/faults', {body: {status: 500, match: {path: '/v1/nothing'}}})
    await api('DELETE', '/v1/sim/faults')

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
