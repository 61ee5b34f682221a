import type {Router} from 'h3'
import {registerRoutes} from '../../src/server/app.js'
import {createService} from '../../src/server/service.js'
import {Store} from '../../src/store/store.js'

export interface Route {
  /** Uppercase, e.g. `POST`. */
  method: string
  /** As registered, e.g. `/v1/checks/:id`. */
  path: string
}

/** Every route createApp registers (methods of `router.use` included), read off a router that only records. */
export async function registeredRoutes(): Promise<Route[]> {
  const store = await Store.open()
  const server = await createService(store, 'http://127.0.0.1:4747', {})
  const context = {
    service: server.service,
    baseUrl: 'http://127.0.0.1:4747',
    clock: server.dispatcher.clock,
    dispatcher: server.dispatcher,
  }
  const routes: Route[] = []
  const record = (method: string) => (path: string, _handler: unknown, methods?: string | string[]) => {
    const all = method === 'use' ? [methods ?? 'all'].flat() : [method]
    for (const m of all) routes.push({method: m.toUpperCase(), path})
  }
  const router = new Proxy({}, {get: (_, method: string) => record(method)}) as unknown as Router
  registerRoutes(router, {...context, now: server.service.context.now, streams: server.streams})
  await server.close()
  await store.close()
  return routes
}
