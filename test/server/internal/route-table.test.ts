import {createRouter, defineEventHandler} from 'h3'
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
