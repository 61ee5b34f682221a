/**
 * Live traffic checked by a validator nobody here wrote: Prism, as a proxy
 * in front of a real server, with `--errors`, turns any request or answer
 * that breaks the OpenAPI document into its own error answer.
 */
import {type ChildProcess, spawn} from 'node:child_process'
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {createServer, request, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {freePort} from '../helpers/ports.js'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, expect, test} from 'vitest'
import {openApiDocument} from '../../src/server/openapi.js'
import {checkWith} from '../helpers/checks.js'
import {ROOT} from '../helpers/cli.js'
import {startReceiver} from '../helpers/receiver.js'
import {call, startTestServer, type TestServer} from '../helpers/simulator.js'

interface Prism {
  url: string
  close(): Promise<void>
}

/** `prism proxy --errors` for `document`, forwarding to `upstream`; resolves once it listens. */
async function startPrism(document: object, upstream: string): Promise<Prism> {
  const file = join(dir, `openapi-${Math.random().toString(36).slice(2)}.json`)
  await writeFile(file, JSON.stringify(document))
  const port = await freePort()
  const args = ['proxy', '--errors', file, upstream, '--host', '127.0.0.1', '--port', String(port)]
  const bin = join(ROOT, 'test', 'node_modules', '.bin', 'prism')
  const child: ChildProcess = spawn(bin, args, {stdio: ['ignore', 'pipe', 'pipe']})
  let output = ''
  await new Promise<void>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes('Prism is listening')) resolve()
    }
    child.stdout!.on('data', read)
    child.stderr!.on('data', read)
    child.once('exit', (code) => reject(new Error(`prism exited ${code}: ${output.slice(-2000)}`)))
  })
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill()
      await exited
    },
  }
}

/**
 * An HTTP relay in front of `upstream` that passes every request and answer as they are, but for the
 * answers to the paths in `tampered`: their JSON gets a check status the document does not have.
 * Prism has one upstream, this relay: a second Prism for a document with a lie in it cost a process.
 */
async function startTamperingRelay(upstream: string) {
  const target = new URL(upstream)
  const tampered = new Set<string>()
  const relay: Server = createServer((req, res) => {
    const forwarded = request(
      {host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers},
      (answer) => {
        if (!tampered.has(req.url ?? '')) {
          res.writeHead(answer.statusCode!, answer.headers)
          answer.pipe(res)
          return
        }
        const chunks: Buffer[] = []
        answer.on('data', (chunk: Buffer) => chunks.push(chunk))
        answer.on('end', () => {
          const body = Buffer.from(JSON.stringify({...JSON.parse(Buffer.concat(chunks).toString()), status: 'opened'}))
          const {'transfer-encoding': _, ...headers} = answer.headers
          res.writeHead(answer.statusCode!, {...headers, 'content-length': body.length}).end(body)
        })
      },
    )
    forwarded.on('error', () => res.destroy())
    req.pipe(forwarded)
  })
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(relay.address() as AddressInfo).port}`,
    tampered,
    async close() {
      relay.closeAllConnections()
      await new Promise((resolve) => relay.close(resolve))
    },
  }
}

let dir: string
let server: TestServer
let relay: Awaited<ReturnType<typeof startTamperingRelay>>
let prism: Prism

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tablepay-prism-'))
  server = await startTestServer({memory: true})
  relay = await startTamperingRelay(server.url)
  prism = await startPrism(openApiDocument(server.url), `${relay.url}/v1`)
}, 60_000)

afterAll(async () => {
  await prism?.close()
  await relay?.close()
  await server?.close()
  await rm(dir, {recursive: true, force: true})
})

/** Prism's own error answers name its error catalogue; the server's never do. */
const prismError = (body: unknown) => JSON.stringify(body ?? null).match(/stoplight\.io\/prism\/errors#\w+/)?.[0]

/** Sends through the validating proxy, noting each request's status and any error of Prism's in `answers`. */
const sender =
  (answers: [string, number, unknown][]) =>
  async (method: string, path: string, options: Parameters<typeof call>[3] = {}) => {
    const answer = await call(prism.url, method, path, options)
    answers.push([`${method} ${path}`, answer.status, prismError(answer.body)])
    return answer
  }

test('Prism finds nothing wrong with a push, a 422, a 404, a ping, typed events and a replayed payment', async () => {
  const answers: [string, number, unknown][] = []
  const send = sender(answers)

  const opened = {body: checkWith([['l1', 2, 450]], {location_id: 'loc_main'})}
  const created = await send('PUT', '/checks/external/prism-1', opened)
  // valid by the schema, refused by the server: the location is not the account's
  await send('PUT', '/checks/external/prism-2', {body: checkWith([['l1', 1, 100]], {location_id: 'loc_elsewhere'})})
  await send('GET', '/checks/chk_nope')
  const receiver = await startReceiver()
  try {
    const subscription = {url: receiver.url, event_types: ['check.updated']}
    const endpoint = (await send('POST', '/webhook-endpoints', {body: subscription})).body
    receiver.verifyWith(endpoint.secret)
    await send('POST', `/webhook-endpoints/${endpoint.id}/test`)
    await send('DELETE', `/webhook-endpoints/${endpoint.id}`)
  } finally {
    await receiver.close()
  }
  const pay = {body: {amount_cents: 100}, headers: {'idempotency-key': 'prism-pay-1'}}
  await send('POST', `/sim/checks/${created.body.id}/payments`, pay)
  const replayed = await send('POST', `/sim/checks/${created.body.id}/payments`, pay)
  await send('GET', '/events')

  expect(replayed.headers.get('idempotent-replayed')).toBe('true')
  expect(answers).toEqual([
    ['PUT /checks/external/prism-1', 201, undefined],
    ['PUT /checks/external/prism-2', 422, undefined],
    ['GET /checks/chk_nope', 404, undefined],
    ['POST /webhook-endpoints', 201, undefined],
    [expect.stringMatching(/^POST \/webhook-endpoints\/we_\w+\/test$/), 200, undefined],
    [expect.stringMatching(/^DELETE \/webhook-endpoints\/we_\w+$/), 200, undefined],
    [expect.stringMatching(/^POST \/sim\/checks\/chk_\w+\/payments$/), 201, undefined],
    [expect.stringMatching(/^POST \/sim\/checks\/chk_\w+\/payments$/), 201, undefined],
    ['GET /events', 200, undefined],
  ])
}, 30_000)

test('Prism finds nothing wrong with the snapshot routes: save, list, get, export, import, restore, delete', async () => {
  const answers: [string, number, unknown][] = []
  const send = sender(answers)
  await send('PUT', '/checks/external/prism-snap', {body: checkWith([['l1', 1, 300]], {location_id: 'loc_main'})})
  await send('POST', '/sim/snapshots', {body: {name: 'prism'}})
  await send('GET', '/sim/snapshots')
  await send('GET', '/sim/snapshots/prism')
  const exported = (await send('GET', '/sim/snapshots/prism/export')).body
  await send('POST', '/sim/snapshots/import', {body: {...exported, name: 'prism-copy'}})
  await send('POST', '/sim/snapshots/prism-copy/restore')
  await send('DELETE', '/sim/snapshots/prism-copy')
  await send('GET', '/sim/snapshots/prism-copy')
  expect(answers.map(([, status, error]) => [status, error])).toEqual([
    [201, undefined],
    [201, undefined],
    [200, undefined],
    [200, undefined],
    [200, undefined],
    [201, undefined],
    [200, undefined],
    [200, undefined],
    [404, undefined],
  ])
}, 30_000)

test('Prism lets through what the server takes: a method in capitals, a date-time at an offset, no optional body, HEAD', async () => {
  const answers: [string, number, unknown][] = []
  const send = sender(answers)
  let since: unknown
  const fault = await send('POST', '/sim/faults', {
    body: {match: {method: 'GET', path: '/v1/claims/clm_none'}, status: 503},
  })
  await send('DELETE', `/sim/faults/${fault.body.id}`)
  const receiver = await startReceiver()
  try {
    const endpoint = (
      await send('POST', '/webhook-endpoints', {body: {url: receiver.url, event_types: ['check.closed']}})
    ).body
    since = (
      await send('POST', `/webhook-endpoints/${endpoint.id}/recover`, {
        body: {since: '2026-11-25T00:00:00+01:00'},
      })
    ).body.since
    // no body and no Content-Type: every field of these bodies is optional
    await send('POST', `/webhook-endpoints/${endpoint.id}/rotate-secret`)
    await send('PATCH', `/webhook-endpoints/${endpoint.id}`)
    await send('PUT', `/sim/webhook-endpoints/${endpoint.id}/chaos`)
    await send('DELETE', `/webhook-endpoints/${endpoint.id}`)
  } finally {
    await receiver.close()
  }
  // Prism checks a HEAD against its operation and forwards it (an unknown operation it answers 405 itself);
  // it then fails to read the answer, parsing the empty body its JSON Content-Type announces (prism-http
  // 5.12's parseResponseBody), so what shows the request passed is the server's log of it
  for (const path of ['/locations', '/checks/chk_nope']) await call(prism.url, 'HEAD', path)
  const heads = (await server.api('GET', '/v1/sim/requests?method=HEAD')).body.data

  expect({answers, since, heads: heads.map((r: {path: string; status: number}) => [r.path, r.status])}).toEqual({
    answers: [
      ['POST /sim/faults', 201, undefined],
      [expect.stringMatching(/^DELETE \/sim\/faults\/flt_\w+$/), 200, undefined],
      ['POST /webhook-endpoints', 201, undefined],
      [expect.stringMatching(/^POST \/webhook-endpoints\/we_\w+\/recover$/), 202, undefined],
      [expect.stringMatching(/^POST \/webhook-endpoints\/we_\w+\/rotate-secret$/), 200, undefined],
      [expect.stringMatching(/^PATCH \/webhook-endpoints\/we_\w+$/), 200, undefined],
      [expect.stringMatching(/^PUT \/sim\/webhook-endpoints\/we_\w+\/chaos$/), 200, undefined],
      [expect.stringMatching(/^DELETE \/webhook-endpoints\/we_\w+$/), 200, undefined],
    ],
    since: '2026-11-24T23:00:00.000Z',
    heads: [
      ['/v1/checks/chk_nope', 404],
      ['/v1/locations', 200],
    ],
  })
}, 30_000)

test('Prism refuses the requests the server refuses for a rule the document says, and lets their neighbours through', async () => {
  const answers: [string, number, unknown][] = []
  const send = sender(answers)
  // a path no request of this file takes, so that the faults made strike nothing
  const match = {path: '/v1/claims/**'}
  const requests: [method: string, path: string, body: object | undefined, status: number | 'refused'][] = [
    // a fault does something, and does not both answer and close the connection
    ['POST', '/sim/faults', {}, 'refused'],
    ['POST', '/sim/faults', {reset: false, match}, 'refused'],
    ['POST', '/sim/faults', {status: 503, reset: true, match}, 'refused'],
    ['POST', '/sim/faults', {delay_ms: 1, match}, 201],
    ['POST', '/sim/faults', {reset: true, delay_ms: 1, match}, 201],
    // a Retry-After only on the answers that carry one
    ['POST', '/sim/faults', {status: 500, retry_after_s: 2, match}, 'refused'],
    ['POST', '/sim/faults', {status: 429, retry_after_s: 2, match}, 201],
    // a method, and a request log's status class, in any case
    ['POST', '/sim/faults', {status: 503, match: {...match, method: 'FETCH'}}, 'refused'],
    ['POST', '/sim/faults', {status: 503, match: {...match, method: 'gEt'}}, 201],
    ['GET', '/sim/requests?status=4yy', undefined, 'refused'],
    ['GET', '/sim/requests?status=4Xx', undefined, 200],
    // `**` is the rest of a path: the last segment, slashes after it matching nothing more
    ['POST', '/sim/faults', {status: 503, match: {path: '/v1/**/claims'}}, 'refused'],
    ['POST', '/sim/faults', {status: 503, match: {path: '/v1/claims/**/'}}, 201],
    // an endpoint's URL is http or https, in any case
    ['POST', '/webhook-endpoints', {url: 'ftp://127.0.0.1/hooks'}, 'refused'],
    ['POST', '/webhook-endpoints', {url: 'HTTP://127.0.0.1:9/hooks', event_types: ['feedback.received']}, 201],
  ]
  for (const [method, path, body] of requests) {
    const answer = await send(method, path, {body})
    if (answer.body?.object === 'webhook_endpoint')
      await server.api('DELETE', `/v1/webhook-endpoints/${answer.body.id}`)
  }
  await server.api('DELETE', '/v1/sim/faults')
  // sent to the server itself, those Prism refuses are refused there too: the document is no narrower
  const direct = requests.filter(([, , , status]) => status === 'refused')
  for (const [method, path, body] of direct) expect((await server.api(method, `/v1${path}`, {body})).status).toBe(422)

  expect(answers).toEqual(
    requests.map(([method, path, , status]) =>
      status === 'refused'
        ? [`${method} ${path}`, 422, 'stoplight.io/prism/errors#UNPROCESSABLE_ENTITY']
        : [`${method} ${path}`, status, undefined],
    ),
  )
}, 30_000)

test('Prism refuses an answer that breaks the document, so a clean run means something', async () => {
  const push = {body: checkWith([['l1', 1, 100]], {location_id: 'loc_main'})}
  const pushed = await call(server.url, 'PUT', '/v1/checks/external/prism-lie', push)
  // the server's answer, but for a status no check has
  relay.tampered.add(`/v1/checks/${pushed.body.id}`)
  const answer = await call(prism.url, 'GET', `/checks/${pushed.body.id}`)
  expect([answer.status, prismError(answer.body)]).toEqual([500, 'stoplight.io/prism/errors#VIOLATIONS'])
  expect(JSON.stringify(answer.body)).toContain('status')
})
