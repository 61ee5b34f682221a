import {createApp as createH3App, createRouter, defineEventHandler, type H3Event, type Router, sendNoContent} from 'h3'
import type {Service} from '../service/index.js'
import type {SchedulerClock} from '../webhooks/clock.js'
import type {Dispatcher} from '../webhooks/dispatcher.js'
import type {Pruner} from '../service/retention.js'
import {ROUTES, type RouteId} from '../domain/routes.js'
import type {AppContext} from './context.js'
import {accountOf, authenticate} from './internal/auth.js'
import {CorsPolicy} from './internal/cors.js'
import {keepLengthOnHead} from './internal/head.js'
import {nodeListener} from './internal/lane.js'
import {noRoute, sendApiError, sendReset, storageUnavailable, toApiError} from './internal/errors.js'
import {readJson} from './internal/body.js'
import {StreamHub} from './internal/event-stream.js'
import {assignRequestId} from './internal/request-id.js'
import {refuseQuery} from './internal/query.js'
import {pathOf, routedPath, withoutTrailingSlash} from './internal/request-path.js'
import {RouteTable, routerPath} from './internal/route-table.js'
import {Traffic, type TrafficOptions} from './internal/traffic.js'
import {OPERATIONS} from './operations.js'
import {guestRoutes} from './routes/guest.js'
import {NoBody} from './schemas.js'
import {webRoutes} from './routes/web.js'

export interface AppOptions {
  /** The URL the server is reached at, for links in resources (`guest_url`). */
  baseUrl: string
  clock: SchedulerClock
  dispatcher: Dispatcher
  /** Retention in the background; an advance of the clock waits for it to catch up. */
  pruner?: Pruner
  /** The live streams; the default one never ends them, so a server with streams should pass its own (see createService). */
  streams?: StreamHub
  /** Origins whose pages may call the whole API (`serve --cors`); `*` for any. */
  cors?: readonly string[]
  /** The access line of each API request (`serve --log`); the request log and faults are the service's. */
  traffic?: TrafficOptions
}

// readiness and the API's description need no key: tools fetch them before they have one, and they hold no data
const PUBLIC = new Set(OPERATIONS.filter((op) => op.scope === null).map((op) => routerPath(op.path)))

/**
 * The whole HTTP API on one h3 app: request ids, auth, one error body, and
 * one routes module per resource. `listener` serves it on node:http, with
 * the busiest routes taken past the app's loop (internal/lane.ts); `app`
 * serves it anywhere else (msw's web handler).
 *
 * @example
 * const service = createServiceLayer({storage: new MemoryStorage(store), baseUrl, now: wallClockIso, clock, strictUrls: false})
 * const dispatcher = new Dispatcher(service, clock)
 * await dispatcher.start()
 * const {listener} = createApp(service, {baseUrl, clock, dispatcher})
 * createServer(listener).listen(4747)
 */
export function createApp(service: Service, options: AppOptions) {
  const {records} = service
  const context: AppContext = {
    service,
    baseUrl: options.baseUrl,
    now: service.context.now,
    clock: options.clock,
    dispatcher: options.dispatcher,
    pruner: options.pruner,
    streams: options.streams ?? new StreamHub({records, shutdown: new AbortController().signal}),
  }
  const routes = new RouteTable()
  const cors = new CorsPolicy(options.cors)
  // the request log, faults and the rate limit: around every API request, never inside a route
  // whether a route answers a request, not a 404 or a 405: a fault strikes only such, and only such needs a scope
  const routed = (method: string, path: string) => routes.takes(method, path)
  const traffic = new Traffic(service, options.traffic ?? {}, routed)
  const app = createH3App({
    async onRequest(event) {
      // background work steps back while requests keep coming (docs/storage.md, "Deferred fan-out")
      service.background.noteRequest()
      assignRequestId(event)
      traffic.start(event, pathOf(event))
      if (records.failure) throw storageUnavailable(records.failure)
      if (event.method === 'HEAD') keepLengthOnHead(event.node.res)
      const path = routedPath(event)
      const api = path.startsWith('/v1/')
      const isPublic = api && PUBLIC.has(withoutTrailingSlash(path))
      // any page may read what is public (API docs viewers, status pages)
      if (isPublic) event.node.res.setHeader('access-control-allow-origin', '*')
      const origin = event.node.req.headers.origin
      if (origin !== undefined && cors.apply(event, origin, isPublic)) event.context.preflight = true
      else if (api && !isPublic) {
        await authenticate(event, records, routed)
        service.accounts.noteUse(accountOf(event))
        await traffic.admit(event)
      }
    },
    // answers go out only once what they show is on disk
    async onBeforeResponse(event, response) {
      await records.settled()
      await traffic.answered(event, response)
    },
    async onError(error, event) {
      // a refusal can rest on a concurrent change: like any answer, it waits until that change is on disk
      await records.settled().catch(() => {})
      // a request under way when a journal write failed: its own change may be among the lost
      const thrown = records.failure ? storageUnavailable(records.failure) : toApiError(error)
      // a fault may replace the answer, or leave none (a reset connection)
      const apiError = await traffic.failed(event, thrown, error.cause ?? error)
      if (!apiError) return sendReset(event)
      if (apiError.code === 'internal_error') console.error('[tablepay]', event.context.requestId, error.cause ?? error)
      if (apiError.code === 'method_not_allowed') {
        event.node.res.setHeader('allow', routes.allowFor(pathOf(event)))
      }
      await sendApiError(event, apiError)
    },
  })
  // a CORS preflight that onRequest answered ends here, before any route
  app.use(defineEventHandler((event) => (event.context.preflight ? sendNoContent(event) : undefined)))
  const router = createRouter({preemptive: true})
  registerRoutes(routes.recording(router), context)
  // h3's 404 names the path in a status message, and warns on stderr when it holds a character a status line cannot:
  // a path no route takes is refused here when it holds one, or any client could fill the server's log
  app.use(
    defineEventHandler((event) => {
      const path = pathOf(event)
      if (/[^\t\x20-\x7e]/.test(path) && routes.allowFor(path) === '') throw noRoute()
    }),
  )
  app.use(router)
  // the push and the read of a check, the API's busiest routes, go past the app's loop and the router's lookup
  const lane = (id: RouteId) => routes.direct(ROUTES[id].method, routerPath(ROUTES[id].path))
  const listener = nodeListener(app, [lane('pushCheck'), lane('getCheckByExternalId')])
  return {app, listener}
}

/**
 * Every route of the app on `router`: each operation of the API, then the
 * table pages and the dashboard, which are not part of it.
 *
 * @example
 * registerRoutes(createRouter(), context) // GET /v1/checks/:id, … GET /t/:token, … GET /
 */
export function registerRoutes(router: Router, context: AppContext): void {
  for (const op of OPERATIONS) {
    // a write that takes no body refuses one that holds anything, as the document says (`{}` at most)
    const bodyless = !op.body && op.method !== 'get'
    const handler = (event: H3Event) => {
      // a list reads its own query, strictly; every other route takes none
      if (!op.list) refuseQuery(event)
      return bodyless ? readJson(event, NoBody).then(() => op.handler(event, context)) : op.handler(event, context)
    }
    router[op.method](routerPath(op.path), defineEventHandler(handler))
  }
  guestRoutes(router, context)
  webRoutes(router)
}
