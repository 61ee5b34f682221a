import type {Router} from 'h3'
import {registerRoutes} from '../../src/server/app.js'
import type {AppContext} from '../../src/server/context.js'
import {Store} from '../../src/store/store.js'
import {SchedulerClock} from '../../src/webhooks/clock.js'
import {Dispatcher} from '../../src/webhooks/dispatcher.js'

export interface Route {
  /** Uppercase, e.g. `POST`. */
  method: string
  /** As registered, e.g. `/v1/checks/:id`. */
  path: string
}

/** Every route createApp registers (methods of `router.use` included), read off a router that only records. */
export async function registeredRoutes(): Promise<Route[]> {
  const store = await Store.open()
  const clock = new SchedulerClock()
  const dispatcher = new Dispatcher(store, clock)
  const now = () => new Date().toISOString()
  const context = {store, baseUrl: 'http://127.0.0.1:4747', now, clock, dispatcher, strictUrls: false, outbox: () => []}
  const routes: Route[] = []
  const record = (method: string) => (path: string, _handler: unknown, methods?: string | string[]) => {
    const all = method === 'use' ? [methods ?? 'all'].flat() : [method]
    for (const m of all) routes.push({method: m.toUpperCase(), path})
  }
  const router = new Proxy({}, {get: (_, method: string) => record(method)}) as unknown as Router
  registerRoutes(router, context as unknown as AppContext)
  await dispatcher.close()
  await store.close()
  return routes
}
