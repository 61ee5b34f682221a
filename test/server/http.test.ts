import {STATUS_CODES} from 'node:http'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {checkWith} from '../helpers/checks.js'
import {type RawAnswer, rawRequest} from '../helpers/raw-http.js'
import {registeredRoutes, type Route} from '../helpers/routes.js'
import {startTestServer, type TestServer, WRITE_KEY} from '../helpers/simulator.js'

let sim: TestServer
let routes: Route[]
let checkId: string
let guestToken: string
beforeAll(async () => {
  sim = await startTestServer({memory: true})
  routes = await registeredRoutes()
  const check = await sim.api('PUT', '/v1/checks/external/http-1', {body: checkWith([['a', 1, 500]])})
  checkId = check.body.id
  guestToken = new URL(check.body.guest_url).pathname.split('/')[2]!
})
afterAll(() => sim.close())

const auth = {authorization: `Bearer ${WRITE_KEY}`}
const STREAMS = ['/v1/sim/stream', '/t/:token/stream']

/** A route's path with real ids where the test has them, `x` elsewhere. */
const concrete = (path: string) => path.replace(':token', guestToken).replace(':id', checkId).replace(/:\w+/g, 'x')

/** The headers two answers to the same request must share: all but those that differ per answer. */
const comparable = (answer: RawAnswer) => {
  const {date, 'x-request-id': _id, ...rest} = answer.headers
  return rest
}

describe('HEAD', () => {
  it('answers on every GET route with the status and headers of the GET, and no body', async () => {
    const gets = routes.filter((r) => r.method === 'GET' && !STREAMS.includes(r.path))
    expect(gets.length).toBeGreaterThan(20)
    for (const {path} of gets) {
      const get = await rawRequest(sim.url, 'GET', concrete(path), {headers: auth})
      const head = await rawRequest(sim.url, 'HEAD', concrete(path), {headers: auth})
      expect(head.status, path).toBe(get.status)
      expect(comparable(head), path).toEqual(comparable(get))
      expect(head.text).toBe('')
    }
  })

  it('answers /v1/health without a key, as wait-on and curl -I ask it', async () => {
    const head = await rawRequest(sim.url, 'HEAD', '/v1/health')
    expect(head.status).toBe(200)
    expect(head.headers['content-length']).toBe('15')
  })

  it('on an event stream answers its headers and ends, leaving the connection usable', async () => {
    for (const path of STREAMS) {
      const head = await fetch(`${sim.url}${concrete(path)}`, {method: 'HEAD', headers: auth})
      expect(head.status, path).toBe(200)
      expect(head.headers.get('content-type')).toMatch(/^text\/event-stream/)
    }
    expect((await fetch(`${sim.url}/v1/health`)).status).toBe(200)
  })
})

describe('405 method_not_allowed', () => {
  it('carries Allow with exactly the methods of the route, on every /v1 route', async () => {
    const byPath = new Map<string, Set<string>>()
    for (const {method, path} of routes.filter((r) => r.path.startsWith('/v1/'))) {
      const methods = byPath.get(path) ?? new Set<string>()
      methods.add(method)
      if (method === 'GET') methods.add('HEAD')
      byPath.set(path, methods)
    }
    for (const [path, methods] of byPath) {
      const wrong = ['PATCH', 'PUT', 'DELETE', 'POST'].find((m) => !methods.has(m))!
      const answer = await rawRequest(sim.url, wrong, concrete(path), {headers: {...auth, 'content-type': 'application/json'}, body: '{}'})
      expect(answer.status, `${wrong} ${path}`).toBe(405)
      expect(answer.body.error.code).toBe('method_not_allowed')
      expect(answer.headers.allow, path).toBe([...methods].sort().join(', '))
    }
  })
})

describe('the status line', () => {
  it('carries the standard reason phrase, on successes and on every kind of error', async () => {
    const answers = [
      await rawRequest(sim.url, 'GET', '/v1/health'),
      await rawRequest(sim.url, 'PUT', '/v1/checks/external/http-2', {headers: {...auth, 'content-type': 'application/json'}, body: JSON.stringify(checkWith([['a', 1, 5]]))}),
      await rawRequest(sim.url, 'GET', '/v1/checks'),
      await rawRequest(sim.url, 'POST', '/v1/sim/reset', {headers: {authorization: 'Bearer tp_test_demo_read'}}),
      await rawRequest(sim.url, 'GET', '/v1/nope', {headers: auth}),
      await rawRequest(sim.url, 'DELETE', '/v1/checks', {headers: auth}),
      await rawRequest(sim.url, 'PUT', '/v1/checks/external/x', {headers: {...auth, 'content-type': 'text/plain'}, body: 'x'}),
      await rawRequest(sim.url, 'PUT', '/v1/checks/external/x', {headers: {...auth, 'content-type': 'application/json'}, body: '{'}),
      await rawRequest(sim.url, 'PUT', '/v1/checks/external/x', {headers: {...auth, 'content-type': 'application/json'}, body: '{}'}),
    ]
    expect(answers.map((a) => a.status)).toEqual([200, 201, 401, 403, 404, 405, 415, 400, 422])
    for (const answer of answers) expect(answer.reason).toBe(STATUS_CODES[answer.status])
  })
})
