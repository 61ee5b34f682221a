import {createApp as createH3App, createRouter, defineEventHandler, getRequestPath} from 'h3'
import type {Store} from '../store/store.js'
import type {AppContext} from './context.js'
import {authenticate} from './internal/auth.js'
import {sendApiError, toApiError} from './internal/errors.js'
import {assignRequestId} from './internal/request-id.js'
import {checkRoutes} from './routes/checks.js'
import {claimRoutes} from './routes/claims.js'
import {eventRoutes} from './routes/events.js'
import {locationRoutes} from './routes/locations.js'
import {simRoutes} from './routes/sim.js'

export interface AppOptions {
  /** The URL the server is reached at, for links in resources (`guest_url`). */
  baseUrl: string
  /** Wall clock; tests may pin it. */
  now?: () => string
}

const PUBLIC = new Set(['/v1/health'])

/**
 * The whole HTTP API on one h3 app: request ids, auth, one error body, and
 * one routes module per resource.
 *
 * @example
 * const app = createApp(await Store.open(), {baseUrl: 'http://127.0.0.1:4747'})
 * createServer(toNodeListener(app)).listen(4747)
 */
export function createApp(store: Store, options: AppOptions) {
  const context: AppContext = {store, baseUrl: options.baseUrl, now: options.now ?? (() => new Date().toISOString())}
  const app = createH3App({
    onRequest(event) {
      assignRequestId(event)
      const path = getRequestPath(event).split('?')[0]!
      if (path.startsWith('/v1/') && !PUBLIC.has(path)) authenticate(event, store)
    },
    // answers go out only once what they show is on disk
    onBeforeResponse: () => store.settled(),
    async onError(error, event) {
      const apiError = toApiError(error)
      if (apiError.code === 'internal_error') console.error('[tablepay]', event.context.requestId, error.cause ?? error)
      await sendApiError(event, apiError)
    },
  })
  const router = createRouter({preemptive: true})
  router.get(
    '/v1/health',
    defineEventHandler(() => ({status: 'ok'})),
  )
  for (const routes of [locationRoutes, checkRoutes, claimRoutes, eventRoutes, simRoutes]) routes(router, context)
  app.use(router)
  return app
}
