/**
 * Live traffic checked by a validator nobody here wrote: Prism, as a proxy
 * in front of a real server, with `--errors`, turns any request or answer
 * that breaks the OpenAPI document into its own error answer.
 */
import {type ChildProcess, spawn} from 'node:child_process'
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
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
  const bin = join(ROOT, 'node_modules', '.bin', 'prism')
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

let dir: string
let server: TestServer
let prism: Prism
let broken: Prism

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tablepay-prism-'))
  server = await startTestServer({memory: true})
  const document = openApiDocument(server.url)
  // the same document with one lie in it: a check can no longer be open
  const lying = structuredClone(document) as {components: {schemas: {Check: {properties: {status: {enum: string[]}}}}}}
  lying.components.schemas.Check.properties.status.enum = ['closed', 'voided']
  const upstream = `${server.url}/v1`
  ;[prism, broken] = await Promise.all([startPrism(document, upstream), startPrism(lying, upstream)])
}, 60_000)

afterAll(async () => {
  await Promise.all([prism?.close(), broken?.close()])
  await server?.close()
  await rm(dir, {recursive: true, force: true})
})

/** Prism's own error answers name its error catalogue; the server's never do. */
const prismError = (body: unknown) => JSON.stringify(body ?? null).match(/stoplight\.io\/prism\/errors#\w+/)?.[0]

test('Prism finds nothing wrong with a push, a 422, a 404, a ping, typed events and a replayed payment', async () => {
  const answers: [string, number, unknown][] = []
  const send = async (method: string, path: string, options: Parameters<typeof call>[3] = {}) => {
    const answer = await call(prism.url, method, path, options)
    answers.push([`${method} ${path}`, answer.status, prismError(answer.body)])
    return answer
  }

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

test('Prism refuses an answer that breaks the document, so a clean run means something', async () => {
  const push = {body: checkWith([['l1', 1, 100]], {location_id: 'loc_main'})}
  const pushed = await call(server.url, 'PUT', '/v1/checks/external/prism-lie', push)
  const answer = await call(broken.url, 'GET', `/checks/${pushed.body.id}`)
  expect([answer.status, prismError(answer.body)]).toEqual([500, 'stoplight.io/prism/errors#VIOLATIONS'])
  expect(JSON.stringify(answer.body)).toContain('status')
})
