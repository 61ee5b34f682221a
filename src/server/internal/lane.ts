import type {IncomingMessage, ServerResponse} from 'node:http'
import {type App, createError, createEvent, type H3Event, send, setResponseStatus, toNodeListener} from 'h3'
import type {DirectRoute} from './route-table.js'

/**
 * `app` as a node listener that takes the requests of `routes` past the
 * app's loop of layers: such a request runs the app's own hooks around the
 * route's handler, in the order the app runs them, and its answer goes out
 * as the app sends one: on the next turn of the event loop (written at once,
 * a GET cost about 3 us more of kernel time). The loop itself (the path
 * decoded, each layer matched and awaited, the answer's type looked at)
 * cost a GET or a replayed push 2-3 us, a tenth of it (docs/benchmarks.md,
 * "The lane"). Every other request goes to the app.
 *
 * A route in the lane answers with text (or throws). The app's `onError`
 * must answer every error it is given (the API's does: its error body, or a
 * reset connection), since nothing here answers after it.
 *
 * @example
 * createServer(nodeListener(app, [routes.direct('GET', '/v1/checks/external/:external_check_id')]))
 */
export function nodeListener(app: App, routes: readonly DirectRoute[]) {
  const toApp = toNodeListener(app)
  const {onRequest, onBeforeResponse, onError} = app.options
  const run = async (event: H3Event, route: DirectRoute) => {
    try {
      await onRequest?.(event)
      const response = {body: await route.handler(event)}
      await onBeforeResponse?.(event, response)
      if (typeof response.body !== 'string') throw new TypeError('a route in the lane answers with text')
      // the type the app gives a text answer that has none
      await send(event, response.body, 'text/html')
    } catch (thrown) {
      // what the app's listener does with an error
      const error = createError(thrown as Error)
      setResponseStatus(event, error.statusCode, error.statusMessage)
      await onError?.(error, event)
    }
  }
  return (req: IncomingMessage, res: ServerResponse): void => {
    for (const route of routes) {
      const params = route.match(req.method, req.url)
      if (!params) continue
      const event = createEvent(req, res)
      event.context.params = params
      void run(event, route)
      return
    }
    void toApp(req, res)
  }
}
