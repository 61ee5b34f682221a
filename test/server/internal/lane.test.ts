import {
  createApp,
  createError,
  createRouter,
  defineEventHandler,
  readRawBody,
  send,
  setResponseHeader,
  setResponseStatus,
  toNodeListener,
} from 'h3'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {nodeListener} from '../../../src/server/internal/lane.js'
import {RouteTable} from '../../../src/server/internal/route-table.js'
import {type Listener, listenOn} from '../../../src/server/listen.js'

/** An app with hooks that leave their mark, a PUT and a GET route, and a route beside them. */
function things() {
  const hits = {lane: 0}
  const app = createApp({
    onRequest(event) {
      setResponseHeader(event, 'x-hook', 'request')
      if (event.node.req.headers['x-refuse']) throw createError({statusCode: 403, statusMessage: 'refused'})
    },
    onBeforeResponse(event, response) {
      setResponseHeader(event, 'x-hook', 'before-response')
      response.body = `${String(response.body)}.`
    },
    async onError(error, event) {
      setResponseStatus(event, error.statusCode)
      setResponseHeader(event, 'content-type', 'application/json')
      await send(event, JSON.stringify({error: error.statusMessage ?? error.message}))
    },
  })
  const routes = new RouteTable()
  const router = routes.recording(createRouter({preemptive: true}))
  router.put(
    '/v1/things/external/:thing_id',
    defineEventHandler(async (event) => `put ${event.context.params?.thing_id} ${await readRawBody(event)}`),
  )
  router.get(
    '/v1/things/external/:thing_id',
    defineEventHandler((event) => {
      const id = event.context.params?.thing_id
      if (id === 'missing') throw createError({statusCode: 404, statusMessage: 'no such thing'})
      return `get ${id}`
    }),
  )
  router.put(
    '/v1/things/external/:thing_id/parts',
    defineEventHandler(() => 'parts'),
  )
  app.use(router)
  const counted = (method: string) => {
    const route = routes.direct(method, '/v1/things/external/:thing_id')
    const {handler} = route
    route.handler = defineEventHandler((event) => {
      hits.lane++
      return handler(event)
    })
    return route
  }
  return {app, hits, lanes: [counted('PUT'), counted('GET')]}
}

describe('nodeListener', () => {
  const {app, hits, lanes} = things()
  let viaApp: Listener
  let viaLane: Listener
  beforeAll(async () => {
    viaApp = await listenOn(0, '127.0.0.1', toNodeListener(app))
    viaLane = await listenOn(0, '127.0.0.1', nodeListener(app, lanes))
  })
  afterAll(() => Promise.all([viaApp.close(), viaLane.close()]))

  const answer = async (base: string, method: string, path: string, headers: Record<string, string> = {}) => {
    const body = method === 'PUT' ? 'body' : undefined
    const response = await fetch(`${base}${path}`, {method, body, headers})
    const hook = response.headers.get('x-hook')
    return `${response.status} ${response.headers.get('content-type')} ${hook} ${await response.text()}`
  }

  it('answers every request as the app does, hooks, errors and all, and takes only its routes', async () => {
    const requests: [string, string, Record<string, string>, boolean][] = [
      ['PUT', '/v1/things/external/t12', {}, true],
      ['PUT', '/v1/things/external/t12?x=1/2', {}, true],
      ['PUT', '/v1/things/external/a%20b', {}, false],
      ['PUT', '/v1/things/external/t12/', {}, false],
      ['PUT', '/v1/things/external/t12/parts', {}, false],
      ['PUT', '/v1/things/external/t12', {'x-refuse': '1'}, true],
      ['GET', '/v1/things/external/t12', {}, true],
      ['GET', '/v1/things/external/missing', {}, true],
      ['HEAD', '/v1/things/external/t12', {}, false],
      ['POST', '/v1/things/external/t12', {}, false],
    ]
    for (const [method, path, headers, taken] of requests) {
      const before = hits.lane
      const expected = await answer(viaApp.url, method, path, headers)
      const inApp = hits.lane - before
      expect(await answer(viaLane.url, method, path, headers), `${method} ${path}`).toBe(expected)
      // a refused request never reaches the handler, in the lane or not
      const reached = headers['x-refuse'] ? 0 : 1
      expect(hits.lane - before - inApp, `${method} ${path} taken by the lane`).toBe(taken ? reached : 0)
    }
  })
})
