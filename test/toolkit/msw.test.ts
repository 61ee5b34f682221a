import {spawn} from 'node:child_process'
import {mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {http, HttpResponse} from 'msw'
import {setupServer} from 'msw/node'
import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import {ROOT} from '../helpers/cli.js'
import {checkWith} from '../helpers/checks.js'
import {TEST_SEED} from '../helpers/simulator.js'

// a consumer's test: the public entry points, resolved through package.json "exports"
const {createTablepayHandlers} = await import('tablepay/msw')
const {TablepayApiError, TablepayClient} = await import('tablepay/client')
const {verifySignature} = await import('tablepay')

const RECEIVER = 'https://pos.example/hooks'

describe('tablepay/msw with setupServer and the typed client', () => {
  let tablepay: Awaited<ReturnType<typeof createTablepayHandlers>>
  let server: ReturnType<typeof setupServer>
  let client: InstanceType<typeof TablepayClient>
  const deliveries: {request: Request; body: string}[] = []
  let onDelivery: () => void = () => {}

  beforeAll(async () => {
    tablepay = await createTablepayHandlers({seed: TEST_SEED})
    const receiver = http.post(RECEIVER, async ({request}) => {
      deliveries.push({request, body: await request.text()})
      onDelivery()
      return new HttpResponse(null, {status: 204})
    })
    server = setupServer(...tablepay.handlers, receiver)
    // nothing may reach the network: every request must be answered by a handler
    server.listen({onUnhandledRequest: 'error'})
    client = new TablepayClient({url: tablepay.url, apiKey: tablepay.apiKey})
  })
  afterAll(async () => {
    server.close()
    await tablepay.close()
  })

  test('pushes and reads checks with the domain rules of the server: created, then unchanged', async () => {
    expect(tablepay.url).toBe('http://127.0.0.1:4747/v1')
    const body = checkWith([['l1', 2, 450]], {location_id: 'loc_main', version: 1})
    const first = await client.pushCheck('msw-1', body)
    expect([first.status, first.result]).toEqual([201, 'created'])
    expect((await client.pushCheck('msw-1', body)).result).toBe('unchanged')
    expect(await client.pushCheck('msw-1', {...body, status: 'closed'}).catch((e: unknown) => e)).toMatchObject({
      status: 409,
      code: 'version_conflict',
    })
    expect(await client.getCheckByExternalId('msw-1')).toEqual(first.check)
  })

  test("refusals come as the API's error body: a read key cannot write, a bad body lists its problems", async () => {
    const reader = new TablepayClient({url: tablepay.url, apiKey: tablepay.readKey!})
    const refused = await reader.pushCheck('msw-2', checkWith([])).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(TablepayApiError)
    expect(refused).toMatchObject({status: 403, code: 'insufficient_scope'})
    const invalid = await client
      .pushCheck('msw-2', {...checkWith([]), status: 'paid'} as never)
      .catch((e: unknown) => e)
    expect(invalid).toMatchObject({status: 422, code: 'validation_failed', details: [{path: 'status'}]})
  })

  test('a JSON request without a body is answered as the server answers it: 400 invalid_json, at once', async () => {
    const answer = await fetch(`${tablepay.url}/checks/external/msw-empty`, {
      method: 'PUT',
      headers: {authorization: `Bearer ${tablepay.apiKey}`, 'content-type': 'application/json'},
    })
    expect(answer.status).toBe(400)
    expect(((await answer.json()) as {error: unknown}).error).toMatchObject({
      code: 'invalid_json',
      message: 'Request body is not valid JSON: the body is empty.',
    })
  })

  test('a claimed item cannot be removed: 409 conflict_with_paid_items', async () => {
    const {check} = await client.pushCheck(
      'msw-3',
      checkWith(
        [
          ['l1', 1, 800],
          ['l2', 1, 300],
        ],
        {location_id: 'loc_main'},
      ),
    )
    const claim = await fetch(`${tablepay.url}/sim/checks/${check.id}/claims`, {
      method: 'POST',
      headers: {authorization: `Bearer ${tablepay.apiKey}`, 'content-type': 'application/json'},
      body: JSON.stringify({items: [{external_id: 'l1', quantity: 1}]}),
    })
    expect(claim.status).toBe(201)
    const refused = await client.pushCheck('msw-3', checkWith([['l2', 1, 300]])).catch((e: unknown) => e)
    expect(refused).toMatchObject({status: 409, code: 'conflict_with_paid_items', details: [{external_id: 'l1'}]})
  })

  test("deliveries are signed fetches that msw hands to the receiver's handler", async () => {
    const endpoint = await client.createWebhookEndpoint({url: RECEIVER, event_types: ['check.created']})
    const delivered = new Promise<void>((resolve) => (onDelivery = resolve))
    const {check} = await client.pushCheck('msw-4', checkWith([['l1', 1, 100]], {location_id: 'loc_main'}))
    await delivered
    const {request, body} = deliveries.at(-1)!
    expect(verifySignature(body, request.headers.get('x-tablepay-signature')!, endpoint.secret)).toMatchObject({
      valid: true,
    })
    expect(JSON.parse(body)).toMatchObject({type: 'check.created', data: check})
    await client.deleteWebhookEndpoint(endpoint.id)
  })

  test('a body whose fields are all optional may be left out, as over HTTP', async () => {
    const endpoint = await client.createWebhookEndpoint({url: RECEIVER, event_types: ['feedback.received']})
    const rotated = await fetch(`${tablepay.url}/webhook-endpoints/${endpoint.id}/rotate-secret`, {
      method: 'POST',
      headers: {authorization: `Bearer ${tablepay.apiKey}`},
    })
    expect(rotated.status).toBe(200)
    expect(((await rotated.json()) as {secret: string}).secret).not.toBe(endpoint.secret)
    await client.deleteWebhookEndpoint(endpoint.id)
  })

  test('a live stream (GET /sim/stream) sends each change as it happens, and ends when its signal aborts', async () => {
    const stop = new AbortController()
    const messages = await client.openStream({signal: stop.signal})
    const next = messages.next()
    const {check} = await client.pushCheck('msw-stream', checkWith([], {location_id: 'loc_main'}))
    expect((await next).value).toMatchObject({type: 'event', data: {type: 'check.created', data: {id: check.id}}})
    const ended = messages.next()
    stop.abort()
    expect(await ended).toEqual({done: true, value: undefined})
  })

  test('an aborted stream frees its place at once: under msw all come from one address, at most 100 open', async () => {
    const headers = {authorization: `Bearer ${tablepay.apiKey}`}
    const open = (stop: AbortController) =>
      fetch(`${tablepay.url}/sim/stream`, {headers, signal: stop.signal}).then((answer) => answer.status)
    const stops = Array.from({length: 101}, () => new AbortController())
    const statuses = await Promise.all(stops.slice(0, 100).map(open))
    expect(statuses.every((status) => status === 200)).toBe(true)
    expect(await open(stops[100]!)).toBe(429)
    stops[0]!.abort()
    expect(await open(stops[100]!)).toBe(200)
    for (const stop of stops) stop.abort()
  })

  test('refuses a baseUrl with a path or a query, which no call could reach, saying what to give', async () => {
    for (const baseUrl of ['http://localhost:8080/prefix', 'http://localhost:8080?x=1', 'localhost:8080'])
      await expect(createTablepayHandlers({seed: TEST_SEED, baseUrl})).rejects.toThrow(
        new RegExp(
          `^createTablepayHandlers: baseUrl "${baseUrl.replace(/[?.]/g, '\\$&')}" (holds a path|holds a query|is not an http)`,
        ),
      )
    // the URL as `serve` prints it is taken
    const printed = await createTablepayHandlers({seed: TEST_SEED, baseUrl: 'http://127.0.0.1:4949/v1/'})
    expect(printed.url).toBe('http://127.0.0.1:4949/v1')
    await printed.close()
  })

  test("close() ends the handlers' open streams", async () => {
    const other = await createTablepayHandlers({seed: TEST_SEED, baseUrl: 'http://127.0.0.1:4848'})
    server.use(...other.handlers)
    const messages = await new TablepayClient({url: other.url, apiKey: other.apiKey}).openStream()
    const ended = messages.next()
    await other.close()
    expect(await ended).toEqual({done: true, value: undefined})
    server.resetHandlers()
  })

  test('after close() the handlers answer nothing, as a stopped server, and each control says the simulator was closed', async () => {
    const other = await createTablepayHandlers({seed: TEST_SEED, baseUrl: 'http://127.0.0.1:4849'})
    server.use(...other.handlers)
    const otherClient = new TablepayClient({url: other.url, apiKey: other.apiKey})
    const body = checkWith([['l1', 1, 100]], {location_id: 'loc_main'})
    expect((await otherClient.pushCheck('closing-1', body)).result).toBe('created')
    await other.close()
    // unhandled (onUnhandledRequest: 'error'): no answer, where the state close() dropped would have answered
    expect(await otherClient.pushCheck('closing-2', body).catch((e: unknown) => e)).toMatchObject({
      code: 'connection_failed',
    })
    const closed =
      'this simulator was closed (close()); call its controls before, or make others with createTablepayHandlers().'
    const controls = [
      () => other.clock.advance(60),
      () => other.reset(),
      () => other.requests(),
      () => other.faults.list(),
      () => other.snapshots.save('after-close'),
    ]
    for (const call of controls) await expect(call()).rejects.toThrow(closed)
    server.resetHandlers()
  })

  test('runScenario() runs a shipped scenario by name against the handlers', async () => {
    const report = await tablepay.runScenario('refund')
    expect(report).toMatchObject({scenario: 'refund', ok: true, failed: 0, skipped: 0})
  })

  test('runScenario() rejects with an error class tablepay/msw exports, the same as tablepay/testing', async () => {
    const {InvalidScenarioError, ScenarioFailedError} = await import('tablepay/msw')
    const testing = await import('tablepay/testing')
    expect([InvalidScenarioError, ScenarioFailedError]).toEqual([
      testing.InvalidScenarioError,
      testing.ScenarioFailedError,
    ])
    await expect(tablepay.runScenario('no-such-scenario')).rejects.toBeInstanceOf(InvalidScenarioError)
  })

  test('reset() and clock.advance() act on the same in-memory state', async () => {
    await client.pushCheck('msw-5', checkWith([], {location_id: 'loc_main'}))
    await tablepay.reset()
    expect((await client.listChecks()).data).toEqual([])
    const before = await client.getClock()
    const after = await tablepay.clock.advance(3600)
    expect(Date.parse(after.now) - Date.parse(before.now)).toBeGreaterThanOrEqual(3600_000)
  })

  test('snapshots.save() and .restore() put the same in-memory state back', async () => {
    await tablepay.reset()
    await client.pushCheck('msw-6', checkWith([], {location_id: 'loc_main'}))
    expect(await tablepay.snapshots.save('msw')).toMatchObject({name: 'msw', counts: {checks: 1}})
    await client.pushCheck('msw-7', checkWith([], {location_id: 'loc_main'}))
    await tablepay.snapshots.restore('msw')
    expect((await client.listChecks()).data.map((check) => check.external_id)).toEqual(['msw-6'])
  })

  test("requests() lists none of the controls' own reads: they are not what the code under test sent", async () => {
    await tablepay.faults.list()
    expect(await tablepay.requests({path: '/v1/sim/faults'})).toEqual([])
  })

  test('requests() shows what the code under test sent; faults.add() loses an answer or the connection', async () => {
    await tablepay.reset()
    const body = checkWith([['l1', 1, 300]], {location_id: 'loc_main', version: 1})
    await tablepay.faults.add({status: 503, after: true, match: {path: '/v1/checks/external/*'}})
    const lost = await client.pushCheck('msw-faults', body).catch((e: unknown) => e)
    expect(lost).toMatchObject({status: 503, code: 'simulated_fault'})
    expect((await client.pushCheck('msw-faults', body)).result).toBe('unchanged')
    const pushes = await tablepay.requests({path: '/v1/checks/external/msw-faults'})
    expect(pushes.map((r) => [r.status, r.push_result, r.fault_id !== null])).toEqual([
      [200, 'unchanged', false],
      [503, 'created', true],
    ])
    expect(pushes[1]!.request_body).toEqual(body)

    const reset = await tablepay.faults.add({reset: true})
    expect((await tablepay.faults.list()).map((f) => f.id)).toEqual([reset.id])
    // as from a real server's reset: the lost answer, not an unreachable server
    await expect(client.listChecks()).rejects.toMatchObject({
      name: 'TablepayConnectionError',
      message: expect.stringContaining('closed the connection without an answer (UND_ERR_SOCKET)'),
    })
    expect(await tablepay.faults.list()).toEqual([])
  })
})

test('the msw entry point loads without oclif', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tablepay-loads-'))
  try {
    const out = join(dir, 'loaded.txt')
    const child = spawn(
      process.execPath,
      [join(ROOT, 'test/fixtures/toolkit/loaded-modules.mjs'), 'tablepay/msw', out],
      {cwd: ROOT, stdio: 'inherit'},
    )
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(0)
    const loaded = (await readFile(out, 'utf8')).split('\n')
    expect(loaded).toContain(pathToFileURL(join(ROOT, 'dist/msw.js')).href)
    expect(loaded.some((url) => url.includes('/node_modules/msw/'))).toBe(true)
    expect(loaded.filter((url) => url.includes('@oclif'))).toEqual([])
  } finally {
    await rm(dir, {recursive: true, force: true})
  }
})

test('a request a fault holds keeps no timer alive once the handlers are closed', async () => {
  const child = spawn(process.execPath, [join(ROOT, 'test/fixtures/toolkit/held-by-fault.mjs')], {cwd: ROOT})
  let stdout = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk))
  child.stderr.pipe(process.stderr)
  expect(await new Promise((resolve) => child.on('close', resolve))).toBe(0)
  expect(JSON.parse(stdout)).toEqual([])
})
