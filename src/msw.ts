/**
 * `tablepay/msw`: the whole API as msw 2 or 3 request handlers, for tests that
 * mock the network instead of starting a server. The handlers run the same
 * app, domain core and store as `tablepay serve` (in memory), so they answer
 * exactly as it does. Loads neither oclif nor a port.
 */
import {toWebHandler} from 'h3'
import {http, type HttpHandler, HttpResponse} from 'msw'
import {DEFAULT_URL} from './client/config.js'
import type {Seed} from './domain/seed-schema.js'
import {createService, seedStore} from './server/service.js'
import {Store} from './store/store.js'
import {type SeededAccount, simulatorControls, type SimulatorControls, untilClosed} from './simulator-controls.js'
import {quoted, serverBase, serverUrlProblem} from './shared/server-url.js'

export type {SeededAccount, SimulatorControls}
export type {Seed}
// what `runScenario` rejects with and resolves to, as `tablepay/testing` exports them (docs/scenarios.md)
export type {ScenarioReport, StepReport} from './scenarios/run.js'
export {InvalidScenarioError, ScenarioFailedError} from './scenarios/errors.js'

export interface TablepayHandlersOptions {
  /** Accounts, locations and keys: a seed, or the path of a seed file. Default: `acct_demo` with random keys. */
  seed?: Seed | string
  /** The origin the handlers answer for, as the code under test calls it (default http://127.0.0.1:4747). */
  baseUrl?: string
}

export interface TablepayHandlers extends SimulatorControls {
  /** Pass them to `setupServer` of `msw/node`: the simulator runs in Node. */
  handlers: HttpHandler[]
  /**
   * Stops the delivery dispatcher and drops the state. The handlers then
   * answer nothing, as a server that stopped: each request is unhandled
   * (your `onUnhandledRequest` says what becomes of it); each control rejects
   * saying the simulator was closed.
   */
  close(): Promise<void>
}

/**
 * Handlers for every request to `baseUrl`. Webhook deliveries are real
 * signed requests (`node:http`) made in the same process, so msw sees them too:
 * handle the endpoint URL you register to receive them (unhandled, they
 * follow your `onUnhandledRequest` setting).
 *
 * @example
 * const tablepay = await createTablepayHandlers({seed: 'node_modules/tablepay/fixtures/seed.json'})
 * const server = setupServer(...tablepay.handlers)
 * server.listen({onUnhandledRequest: 'error'})
 * const client = new TablepayClient({url: tablepay.url, apiKey: tablepay.apiKey})
 */
export async function createTablepayHandlers(options: TablepayHandlersOptions = {}): Promise<TablepayHandlers> {
  const baseUrl = options.baseUrl ?? DEFAULT_URL
  const problem = baseUrlProblem(baseUrl)
  if (problem) throw new TypeError(`createTablepayHandlers: baseUrl ${quoted(baseUrl)} ${problem}.`)
  const origin = serverBase(baseUrl)
  const store = await Store.open()
  await seedStore(store, typeof options.seed === 'string' ? {seedFile: options.seed} : {seed: options.seed})
  const server = await createService(store, origin, {})
  const handle = toWebHandler(server.app)
  let closed = false
  return {
    handlers: [
      http.all(`${origin}/*`, async ({request}) => {
        if (closed) return undefined
        const response = await handle(request)
        // a fault with reset: true: the code under test sees a network error, as from a closed connection. msw's
        // fetch rejects with this answer as the error's cause: it carries undici's code for a connection closed
        // without an answer, so the client says what it says of a real server's reset (the lost answer)
        return response.headers.has('x-tablepay-connection-reset')
          ? Object.assign(HttpResponse.error(), {code: 'UND_ERR_SOCKET'})
          : response
      }),
    ],
    // the controls call the app directly: they work whether or not msw is listening
    ...untilClosed(
      simulatorControls(`${origin}/v1`, await server.service.records.accounts(), (input, init) =>
        handle(new Request(input, init)),
      ),
      () => closed,
      'make others with createTablepayHandlers()',
    ),
    async close() {
      closed = true
      await server.close()
      await store.close()
    },
  }
}

/**
 * Why `baseUrl` cannot be what the handlers answer for, as the end of a sentence; undefined when it can. The API
 * is at an origin's `/v1`: under a path, every call would be an unknown route (a query, serverUrlProblem refuses).
 */
function baseUrlProblem(baseUrl: string): string | undefined {
  const problem = serverUrlProblem(baseUrl)
  if (problem) return problem
  if (new URL(serverBase(baseUrl)).pathname !== '/')
    return `holds a path: give the origin the code under test calls, e.g. ${DEFAULT_URL} (the API is at its /v1)`
  return undefined
}
