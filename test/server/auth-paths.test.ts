import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {rawRequest} from '../helpers/raw-http.js'
import {registeredRoutes, type Route} from '../helpers/routes.js'
import {startTestServer, type TestServer, WRITE_KEY} from '../helpers/simulator.js'

let sim: TestServer
beforeAll(async () => {
  sim = await startTestServer({memory: true})
})
afterAll(() => sim.close())

/** Bodies that the routes would accept, so that only auth stands between a variant and a change. */
const BODIES: Record<string, unknown> = {
  '/v1/sim/clock/advance': {seconds: 36_000},
  '/v1/webhook-endpoints': {url: 'http://127.0.0.1:9/hook', event_types: ['check.created']},
}

/** Ways to write a /v1 path that a naive prefix check on the raw URL does not see as /v1. */
function variants(path: string): string[] {
  const rest = path.slice('/v1/'.length)
  const [first = '', ...others] = rest.split('/')
  const encodedFirst = `%${first.charCodeAt(0).toString(16)}${first.slice(1)}`
  return [
    `/%761/${rest}`,
    `/%76%31/${rest}`,
    `/v%31/${rest}`,
    `/%56%31/${rest}`,
    `/V1/${rest}`,
    `/v1/${[encodedFirst, ...others].join('/')}`,
    `/v1/${[first.toUpperCase(), ...others].join('/')}`,
    `/%25761/${rest}`,
    `/%2576%2531/${rest}`,
    `/x/../v1/${rest}`,
    `/t/../v1/${rest}`,
    `/%2e%2e/v1/${rest}`,
    `/t/%2E%2E/v1/${rest}`,
    `/v1/./${rest}`,
    `/v1/%2e/${rest}`,
    `/./v1/${rest}`,
    `//v1/${rest}`,
    `/v1//${rest}`,
    `/v1%2F${rest.replaceAll('/', '%2F')}`,
    `/v1/${rest}/`,
    `/v1/${rest}?x=/../`,
  ]
}

async function apiRoutes(): Promise<Route[]> {
  const routes = await registeredRoutes()
  return routes.filter((r) => r.path.startsWith('/v1/') && !['/v1/health', '/v1/openapi.json'].includes(r.path))
}

const concrete = (path: string) => path.replace(/:\w+/g, 'x')

describe('a /v1 route however its path is written', () => {
  it('answers 401 or 404 without a key: every route, encoded, double-encoded, dot-segment and case variants', async () => {
    const routes = await apiRoutes()
    expect(routes.length).toBeGreaterThan(20)
    const seen: string[] = []
    for (const {method, path} of routes) {
      const body = JSON.stringify(BODIES[path] ?? {})
      for (const variant of variants(concrete(path))) {
        const sent = {headers: {'content-type': 'application/json'}, body: method === 'GET' ? undefined : body}
        const answer = await rawRequest(sim.url, method, variant, sent)
        seen.push(`${method} ${variant} ${answer.status}`)
        expect([401, 404], `${method} ${variant}`).toContain(answer.status)
        expect(answer.body.error.code).toBe(answer.status === 401 ? 'unauthenticated' : 'not_found')
      }
    }
    // none of them changed anything: the clock did not move, no endpoint or account appeared
    expect((await sim.api('GET', '/v1/sim/clock')).body.offset_seconds).toBe(0)
    expect((await sim.api('GET', '/v1/webhook-endpoints')).body.data).toEqual([])
    expect(sim.server.accounts).toHaveLength(2)
    expect(seen.some((line) => line.endsWith(' 401'))).toBe(true)
  })

  it('refuses the reported attacks: the clock, an endpoint and a scratch account made through /%761', async () => {
    const noKey = {headers: {'content-type': 'application/json'}}
    const seconds = JSON.stringify(BODIES['/v1/sim/clock/advance'])
    const advance = await rawRequest(sim.url, 'POST', '/%761/sim/clock/advance', {...noKey, body: seconds})
    expect(advance.status).toBe(401)
    const hook = JSON.stringify(BODIES['/v1/webhook-endpoints'])
    const endpoint = await rawRequest(sim.url, 'POST', '/%761/webhook-endpoints', {...noKey, body: hook})
    expect(endpoint.status).toBe(401)
    const account = await rawRequest(sim.url, 'POST', '/%761/sim/accounts', {...noKey, body: '{}'})
    expect(account.status).toBe(401)
    expect(account.body.error.code).toBe('unauthenticated')
    expect((await sim.api('GET', '/v1/sim/clock')).body.offset_seconds).toBe(0)
    expect((await sim.api('GET', '/v1/webhook-endpoints')).body.data).toEqual([])
  })

  it('routes an encoded path with a key exactly as the plain one: auth and routing read the same path', async () => {
    const auth = {authorization: `Bearer ${WRITE_KEY}`}
    const plain = await rawRequest(sim.url, 'GET', '/v1/sim/clock', {headers: auth})
    const encoded = await rawRequest(sim.url, 'GET', '/%761/sim/clock', {headers: auth})
    expect(plain.status).toBe(200)
    expect(encoded.status).toBe(200)
    expect(encoded.body.object).toBe('clock')
  })

  it('takes a "?" sent as %3F for a character of the path, not the start of the query: no route has one', async () => {
    const auth = {headers: {authorization: `Bearer ${WRITE_KEY}`}}
    const answers = await Promise.all(
      ['/v1/checks%3Flimit=1', '/v1/checks%3flimit=1?limit=2', '/v1/checks/external/a%3Fb'].map((path) =>
        rawRequest(sim.url, 'GET', path, auth),
      ),
    )
    expect(answers.map(({status, body}) => [status, body.error?.code])).toEqual([
      [404, 'not_found'],
      [404, 'not_found'],
      [404, 'not_found'],
    ])
    expect(answers[0]!.body.error.message).toContain('%3F')
  })

  it('takes a segment holding a tab sent as %09 for a segment like any, and refuses a dot segment after / or \\', async () => {
    const auth = {headers: {authorization: `Bearer ${WRITE_KEY}`}}
    const [tab, dots, slash, fragment] = await Promise.all([
      rawRequest(sim.url, 'GET', '/v1/checks/external/.%09.', auth),
      rawRequest(sim.url, 'GET', '/v1/checks/external/..', auth),
      rawRequest(sim.url, 'GET', '/v1/checks/external%5c..', auth),
      rawRequest(sim.url, 'GET', '/v1/checks/external/..#x', auth),
    ])
    expect([tab.status, tab.body.error.code, tab.body.error.details[0].path]).toEqual([
      422,
      'validation_failed',
      'external_check_id',
    ])
    // a dot segment after a backslash, or before a #, is one too, as a URL parser reads it
    for (const refused of [dots, slash, fragment])
      expect([refused.status, refused.body.error.message]).toEqual([
        404,
        'No such route: a path may not contain "." or ".." segments.',
      ])
  })

  it('takes a request target in absolute form as its path: the same auth, routing and refusals', async () => {
    const auth = {headers: {authorization: `Bearer ${WRITE_KEY}`}}
    const plain = await rawRequest(sim.url, 'GET', '/v1/locations', auth)
    const answers = await Promise.all([
      rawRequest(sim.url, 'GET', 'http://tablepay.test/v1/health'),
      rawRequest(sim.url, 'GET', 'http://tablepay.test:4747/v1/locations'),
      rawRequest(sim.url, 'GET', 'HTTP://tablepay.test/%761/locations'),
      rawRequest(sim.url, 'GET', 'https://tablepay.test/v1/locations?limit=1', auth),
      rawRequest(sim.url, 'GET', 'http://tablepay.test/v1/../v1/locations', auth),
    ])
    expect(answers.map(({status, body}) => [status, body.error?.code ?? body.object ?? body.status])).toEqual([
      [200, 'ok'],
      [401, 'unauthenticated'],
      [401, 'unauthenticated'],
      [200, 'list'],
      [404, 'not_found'],
    ])
    expect(answers[3]!.body.data).toEqual(plain.body.data.slice(0, 1))
  })

  it('keeps the public routes public with a trailing slash, and every other route private', async () => {
    for (const path of ['/v1/health', '/v1/health/', '/%761/health', '/v1/openapi.json/']) {
      expect((await rawRequest(sim.url, 'GET', path)).status, path).toBe(200)
    }
    expect((await rawRequest(sim.url, 'GET', '/v1/health/../checks')).status).toBe(404)
  })
})
