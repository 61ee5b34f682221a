import {createApp, createRouter, defineEventHandler, toWebHandler} from 'h3'
import {describe, expect, it} from 'vitest'
import {RouteTable} from '../../../src/server/internal/route-table.js'

/** An app with a PUT route that answers its parameter, and a GET beside it; `direct` puts both ahead of the router. */
function appWith(direct: boolean) {
  const hits = {direct: 0}
  const app = createApp()
  const routes = new RouteTable()
  const router = routes.recording(createRouter({preemptive: true}))
  router.put(
    '/v1/things/external/:thing_id',
    defineEventHandler((event) => `put ${JSON.stringify(event.context.params)}`),
  )
  router.get(
    '/v1/things/external/:thing_id',
    defineEventHandler((event) => `get ${event.context.params?.thing_id}`),
  )
  router.put(
    '/v1/things/external/:thing_id/parts',
    defineEventHandler(() => 'parts'),
  )
  for (const method of direct ? ['PUT', 'GET'] : []) {
    const [handler, options] = routes.direct(method, '/v1/things/external/:thing_id')
    app.use(
      defineEventHandler((event) => {
        hits.direct++
        return handler(event)
      }),
      options,
    )
  }
  app.use(router)
  const handle = toWebHandler(app)
  const answer = async (method: string, path: string) => {
    const response = await handle(new Request(`http://localhost${path}`, {method}))
    return `${response.status} ${await response.text()}`
  }
  return {answer, hits}
}

describe('RouteTable.direct', () => {
  it('answers every request as the router does, and takes only the route it names', async () => {
    const viaRouter = appWith(false)
    const viaDirect = appWith(true)
    const requests: [string, string, boolean][] = [
      ['PUT', '/v1/things/external/t12', true],
      ['PUT', '/v1/things/external/a%20b', true],
      ['PUT', '/v1/things/external/t12?x=1/2', true],
      ['PUT', '/v1/things/external/a%3Fb', true],
      ['PUT', '/v1/things/external/t12/', false],
      ['PUT', '/v1/things/external/', false],
      ['PUT', '/v1/things/external/t12/parts', false],
      ['PUT', '/v1/things/externalt12', false],
      ['GET', '/v1/things/external/t12', true],
      ['GET', '/v1/things/external/t12/', false],
      ['HEAD', '/v1/things/external/t12', false],
      ['POST', '/v1/things/external/t12', false],
    ]
    for (const [method, path, direct] of requests) {
      const before = viaDirect.hits.direct
      expect(await viaDirect.answer(method, path), `${method} ${path}`).toBe(await viaRouter.answer(method, path))
      expect(viaDirect.hits.direct - before, `${method} ${path} taken directly`).toBe(direct ? 1 : 0)
    }
  })

  it('refuses a route it does not know', () => {
    expect(() => new RouteTable().direct('PUT', '/v1/nothing/:id')).toThrow(/no route PUT/)
  })
})
