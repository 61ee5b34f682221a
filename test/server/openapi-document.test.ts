/**
 * The OpenAPI document itself, judged by tools nobody here wrote (the
 * OpenAPI 3.1 schema, redocly) and against the routes the server registers.
 * Not about the store, so the memory project alone runs it; real answers on
 * both stores meet the document in openapi.test.ts.
 */
import {execFile} from 'node:child_process'
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {Validator} from '@seriousme/openapi-schema-validator'
import type {Router} from 'h3'
import {expect, test} from 'vitest'
import {ERROR_STATUS, type ErrorCode} from '../../src/domain/errors.js'
import {registerRoutes} from '../../src/server/app.js'
import {ERROR_MEANINGS} from '../../src/server/openapi-errors.js'
import {createService} from '../../src/server/service.js'
import {Store} from '../../src/store/store.js'
import {ROOT} from '../helpers/cli.js'
import {doc, documented, type Response} from '../helpers/openapi-doc.js'

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
 * a 405 answers a method a path does not take, and what Node's HTTP parser
 * refuses is answered before any route: no operation can describe those.
 */
const ACCEPTED_WARNINGS = [
  'no-ambiguous-paths #/paths/~1checks~1{id}~1claims',
  'no-ambiguous-paths #/paths/~1checks~1{id}~1feedback',
  'no-ambiguous-paths #/paths/~1checks~1{id}~1payments',
  'no-unused-components #/components/responses/ExpectationFailed',
  'no-unused-components #/components/responses/HeadersTooLarge',
  'no-unused-components #/components/responses/MalformedRequest',
  'no-unused-components #/components/responses/MethodNotAllowed',
  'no-unused-components #/components/responses/RequestTimeout',
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

test('operations stay small as routes are added: error answers are shared, at most 2 KB an operation and 250 KiB in all pretty-printed', () => {
  const operations = Object.values(doc.paths).flatMap((item) =>
    Object.entries(item).filter(([method]) => method !== 'parameters'),
  )
  const inlineErrors = operations.flatMap(([, op]) =>
    Object.entries(op.responses).filter(([status, response]) => Number(status) >= 400 && !response.$ref),
  )
  expect(inlineErrors).toEqual([])
  // 1.6 KB now; each error answer inlined made them 10 KB (docs/api.md, "Routes")
  expect(Buffer.byteLength(JSON.stringify(doc.paths, null, 2)) / operations.length).toBeLessThanOrEqual(2000)
  // what a code generator or an editor is handed whole: 245 KiB now
  expect(Buffer.byteLength(JSON.stringify(doc, null, 2))).toBeLessThanOrEqual(250 * 1024)
})

test('a write that takes no body has the shared body of none: left out, or {}', () => {
  const writes = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => ['post', 'put', 'patch', 'delete'].includes(method))
      .map(([method, op]) => [`${method} ${path}`, op] as const),
  )
  const none = writes.filter(([, op]) => (op as {requestBody?: {$ref?: string}}).requestBody?.$ref)
  expect(none.map(([name]) => name)).toContain('post /sim/reset')
  for (const [name, op] of writes) expect((op as {requestBody?: unknown}).requestBody, name).toBeDefined()
  expect((doc.components as any).requestBodies.NoBody).toMatchObject({
    required: false,
    content: {'application/json': {schema: {type: 'object', additionalProperties: false}}},
  })
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

test('every answer that may be 503 starting declares Retry-After, which it always carries', () => {
  const starting = Object.entries(doc.components.responses).filter(([name]) => /(^|Or)Starting(Or|Head$|$)/.test(name))
  expect(starting.map(([name]) => name)).toEqual(expect.arrayContaining(['StorageUnavailableOrStarting']))
  for (const [name, answer] of starting) expect(Object.keys(answer.headers ?? {}), name).toContain('Retry-After')
})
