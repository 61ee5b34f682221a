import {createApp, createRouter, defineEventHandler, toWebHandler} from 'h3'
import {describe, expect, it} from 'vitest'
import {RouteTable} from '../../../src/server/internal/route-table.js'

describe('RouteTable.direct', () => {
  const routes = new RouteTable()
  const router = routes.recording(createRouter({preemptive: true}))
  router.put(
    '/v1/things/external/:thing_id',
    defineEventHandler(() => 'put'),
  )
  const put = routes.direct('PUT', '/v1/things/external/:thing_id')

  it('gives the parameter of exactly the requests the router gives the route', () => {
    const requests: [string, string, Record<string, string> | undefined][] = [
      ['PUT', '/v1/things/external/t12', {thing_id: 't12'}],
      ['PUT', '/v1/things/external/t12?x=1/2', {thing_id: 't12'}],
      ['PUT', '/v1/things/external/t12/', undefined],
      ['PUT', '/v1/things/external/', undefined],
      ['PUT', '/v1/things/external/?x=1', undefined],
      ['PUT', '/v1/things/external/t12/parts', undefined],
      ['PUT', '/v1/things/externalt12', undefined],
      ['GET', '/v1/things/external/t12', undefined],
      ['HEAD', '/v1/things/external/t12', undefined],
    ]
    for (const [method, url, params] of requests) expect(put.match(method, url), `${method} ${url}`).toEqual(params)
  })

  it('leaves a URL with a percent escape to the app, which decodes it before routing', () => {
    expect(put.match('PUT', '/v1/things/external/a%20b')).toBeUndefined()
  })

  it('refuses a route it does not know', () => {
    expect(() => new RouteTable().direct('PUT', '/v1/nothing/:id')).toThrow(/no route PUT/)
  })
})

describe('RouteTable.takes', () => {
  it("takes exactly the requests h3's router gives a handler: empty segments and one trailing slash too", async () => {
    const routes = new RouteTable()
    const app = createApp()
    const router = routes.recording(createRouter())
    for (const path of ['/v1/things', '/v1/things/:id', '/v1/things/:id/parts'])
      for (const method of ['get', 'delete'] as const)
        router[method](
          path,
          defineEventHandler(() => 'handled'),
        )
    app.use(router)
    const handle = toWebHandler(app)
    const paths = ['/v1/things', '/v1/things/', '/v1/things//', '/v1/things///', '/v1/things/a', '/v1/things/a/']
    paths.push(
      '/v1/things//parts',
      '/v1/things//parts/',
      '/v1/things/a//',
      '/v1//things',
      '/v1/thing',
      '/v1/things/a/b',
    )
    for (const path of paths)
      for (const method of ['GET', 'DELETE', 'POST']) {
        const answer = await handle(new Request(`http://x${path}`, {method}))
        const handled = (await answer.text()) === 'handled'
        expect(routes.takes(method, path), `${method} ${path}`).toBe(handled)
      }
  })
})
