import {describe, expect, test} from 'vitest'
import {TablepayClient} from '../../src/client/client.js'
import {ROUTES, type RouteId} from '../../src/domain/routes.js'
import {OPERATIONS} from '../../src/server/operations.js'

type Method = {
  [K in keyof TablepayClient]: TablepayClient[K] extends (...args: never[]) => unknown ? K : never
}[keyof TablepayClient]

const endpoint = {url: 'https://example.test/hook', event_types: ['check.created' as const]}

/** Every method of the client, called with made-up values: both ways where it reaches two routes. */
const CALLS: Record<Method, (client: TablepayClient) => Promise<unknown>> = {
  withApiKey: async (client) => client.withApiKey('tp_test_other'),
  withHeaders: async (client) => client.withHeaders({'x-tablepay-client': 'cli-tail'}),
  getHealth: (client) => client.getHealth(),
  getOpenApi: (client) => client.getOpenApi(),
  getKey: (client) => client.getKey(),
  listLocations: (client) => client.listLocations(),
  pushCheck: (client) => client.pushCheck('t12', {} as never),
  getCheck: (client) => client.getCheck('chk_1'),
  getCheckByExternalId: (client) => client.getCheckByExternalId('t12'),
  listChecks: (client) => client.listChecks({status: 'open'}),
  listEvents: (client) => client.listEvents(),
  getEvent: (client) => client.getEvent('evt_1'),
  claim: (client) => client.claim('chk_1', {items: []}),
  pay: (client) => client.pay('chk_1', {amount_cents: 100}),
  refund: (client) => client.refund('pay_1'),
  feedback: (client) => client.feedback('chk_1', {rating: 5}),
  getClaim: (client) => client.getClaim('clm_1'),
  getPayment: (client) => client.getPayment('pay_1'),
  getFeedback: (client) => client.getFeedback('fbk_1'),
  listClaims: (client) => client.listClaims('chk_1'),
  listPayments: (client) => client.listPayments('chk_1'),
  listFeedback: (client) => client.listFeedback('chk_1'),
  createWebhookEndpoint: (client) => client.createWebhookEndpoint(endpoint),
  listWebhookEndpoints: (client) => client.listWebhookEndpoints(),
  getWebhookEndpoint: (client) => client.getWebhookEndpoint('we_1'),
  deleteWebhookEndpoint: (client) => client.deleteWebhookEndpoint('we_1'),
  testWebhookEndpoint: (client) => client.testWebhookEndpoint('we_1'),
  listDeliveries: (client) => client.listDeliveries(),
  getDelivery: (client) => client.getDelivery('dlv_1'),
  retryDelivery: (client) => client.retryDelivery('dlv_1'),
  getClock: (client) => client.getClock(),
  advanceClock: (client) => client.advanceClock(60),
  resetClock: (client) => client.resetClock(),
  reset: (client) => client.reset(),
  openStream: (client) => client.openStream(),
  openRequestStream: (client) => client.openRequestStream(),
  createScratchAccount: (client) => client.createScratchAccount(),
  deleteScratchAccount: (client) => client.deleteScratchAccount('acct_1'),
  createWebhookEndpointWithSecret: (client) =>
    client.createWebhookEndpointWithSecret({...endpoint, secret: 'whsec_known_secret_0123456789'}),
  getListenSecret: (client) => client.getListenSecret(),
  updateWebhookEndpoint: (client) => client.updateWebhookEndpoint('we_1', {description: 'x'}),
  rotateWebhookSecret: (client) => client.rotateWebhookSecret('we_1'),
  recoverWebhookEndpoint: (client) => client.recoverWebhookEndpoint('we_1', '2026-01-01T00:00:00.000Z'),
  resendEvent: (client) => client.resendEvent('evt_1', 'we_1'),
  getWebhookChaos: (client) => client.getWebhookChaos('we_1'),
  setWebhookChaos: (client) => client.setWebhookChaos('we_1', {duplicate: 0.5}),
  endWebhookChaos: (client) => client.endWebhookChaos('we_1'),
  listRequests: (client) => client.listRequests(),
  getRequest: (client) => client.getRequest('req_1'),
  addFault: (client) => client.addFault({status: 503}),
  listFaults: (client) => client.listFaults(),
  clearFaults: (client) => Promise.all([client.clearFaults(), client.clearFaults('flt_1')]),
  deleteFault: (client) => client.deleteFault('flt_1'),
  request: (client) => client.request('POST', '/sim/checks/chk_1/claims', {body: {items: []}}),
  saveSnapshot: (client) => client.saveSnapshot('base'),
  listSnapshots: (client) => client.listSnapshots(),
  getSnapshot: (client) => client.getSnapshot('base'),
  deleteSnapshot: (client) => client.deleteSnapshot('base'),
  restoreSnapshot: (client) => client.restoreSnapshot('base'),
  exportSnapshot: (client) => client.exportSnapshot('base'),
  importSnapshot: (client) =>
    client.importSnapshot({tablepay_snapshot: 1, name: 'base', account: 'acct_1', created_at: '', records: {}}),
}

/** `/checks/{id}` as a RegExp of the paths it takes. */
const patternOf = (path: string) => new RegExp(`^${path.replace(/\./g, '\\.').replace(/\{\w+\}/g, '[^/]+')}$`)

/** The route a request is for: of those its method and path fit, the one with the fewest parameters. */
function routeOf(method: string, path: string): RouteId | undefined {
  const fitting = (Object.keys(ROUTES) as RouteId[])
    .filter((id) => ROUTES[id].method === method && patternOf(ROUTES[id].path).test(path))
    .sort((a, b) => ROUTES[a].path.split('{').length - ROUTES[b].path.split('{').length)
  return fitting[0]
}

/** An answer every route's client method takes for the API's: it holds the field each route's answers hold. */
const ANY = JSON.stringify({object: 'any', status: 'ok', openapi: '3.1.0', tablepay_snapshot: 1})

/** Which routes each method of the client requests, as seen by a fetch that only records and answers `ANY`. */
async function requestedByEachMethod(): Promise<Map<Method, string[]>> {
  const requested = new Map<Method, string[]>()
  for (const [name, call] of Object.entries(CALLS) as [Method, (client: TablepayClient) => Promise<unknown>][]) {
    const seen: string[] = []
    const fetch = async (url: string, init: RequestInit) => {
      const {pathname} = new URL(url)
      const method = init.method ?? 'GET'
      const bare = pathname.replace(/^\/v1(?=\/)/, '')
      seen.push(routeOf(method, bare) ?? `${method} ${pathname}: no route`)
      // a stream asks for one, and takes no other answer
      const type = new Headers(init.headers).get('accept') ?? 'application/json'
      return new Response(ANY, {status: 200, headers: {'content-type': type}})
    }
    await call(new TablepayClient({url: 'http://tablepay.test', apiKey: 'tp_test_demo_write', fetch}))
    requested.set(name, seen)
  }
  return requested
}

describe('one definition per route: the routes, the server and the client agree', () => {
  test('the server declares one operation per route, with its method, path and scope, in the routes order', () => {
    const declared = OPERATIONS.map((op) => [op.id, op.method.toUpperCase(), op.path, op.scope])
    const routes = Object.entries(ROUTES).map(([id, {method, path, scope}]) => [id, method, path, scope])
    expect(declared).toEqual(routes)
  })

  test('the table above calls every method of the client', () => {
    const methods = Object.getOwnPropertyNames(TablepayClient.prototype).filter((name) => name !== 'constructor')
    expect(Object.keys(CALLS).sort()).toEqual(methods.sort())
  })

  test('every request of the client is for a route, and every route has a client method that requests it', async () => {
    const requested = await requestedByEachMethod()
    const strays = [...requested].flatMap(([name, ids]) =>
      ids.filter((id) => !(id in ROUTES)).map((stray) => `${name}: ${stray}`),
    )
    expect(strays).toEqual([])
    const reached = new Set([...requested.values()].flat())
    expect(Object.keys(ROUTES).filter((id) => !reached.has(id))).toEqual([])
  })
})
