/** Where undici, the fetch of Node, keeps its global dispatcher (its own `getGlobalDispatcher` reads it). */
const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1')

interface Dispatcher {
  dispatch(options: object, handler: object): boolean
}

const globalDispatcher = () => (globalThis as {[GLOBAL_DISPATCHER]?: Dispatcher})[GLOBAL_DISPATCHER]

/** The global dispatcher of the moment (one a program set, a proxy's, included), with no waits of its own. */
const UNBOUNDED: Dispatcher = {
  dispatch: (options, handler) =>
    globalDispatcher()!.dispatch({...options, headersTimeout: 0, bodyTimeout: 0}, handler),
}

let visible: boolean | undefined

/**
 * What a request's init adds so that Node's fetch waits for its answer as long as the client does: undici gives
 * up on headers, or on a body that pauses, after 300 s whatever the request's signal says, and an advance of
 * hours against a slow receiver (`clock advance`, a scenario's `advance` step) answers later than that. The
 * client's `timeoutMs` is then its only limit (README, "In your tests"). Nothing where this realm
 * cannot see undici's dispatcher (jest's sandbox): its limits then stay.
 */
export function waitAsLongAsAsked(): RequestInit {
  if (visible === undefined) {
    // Node loads undici, which sets its global dispatcher, when one of fetch's globals is first read. Reading
    // `Response` sends nothing: a request here would reach a fetch the user's tests wrap (msw's, which reports
    // it as an unhandled request of theirs)
    if (!globalDispatcher()) void globalThis.Response
    visible = typeof globalDispatcher()?.dispatch === 'function'
  }
  // undici's Dispatcher type lists all its methods; fetch calls only `dispatch`
  return visible ? ({dispatcher: UNBOUNDED} as RequestInit) : {}
}
