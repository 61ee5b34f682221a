import type {EventHandler, H3Event, Router} from 'h3'

const METHODS = new Set(['get', 'head', 'post', 'put', 'patch', 'delete', 'options', 'connect', 'trace'])

/** `/v1/checks/:id` as a RegExp of the paths it matches; the router ignores a trailing slash. */
function patternOf(path: string): RegExp {
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const segments = path.split('/').map((s) => (s.startsWith(':') ? '[^/]+' : s === '**' ? '.*' : escape(s)))
  return new RegExp(`^${segments.join('/')}/?$`)
}

/**
 * Which methods each route takes, for the `Allow` header of a 405 (h3's
 * router answers 405 without saying). Filled by the routes as they register
 * through `recording`, which also makes every GET route answer HEAD (Node
 * leaves the body out); read only when answering a 405.
 */
export class RouteTable {
  private readonly routes = new Map<string, {pattern: RegExp; methods: Set<string>}>()
  /** The handler of each route by `METHOD path`, for `direct`. */
  private readonly handlers = new Map<string, EventHandler>()

  /** `router`, noting the path and method of every route added through it, and adding HEAD to each GET. */
  recording(router: Router): Router {
    const note = (path: string, methods: string[]) => {
      const route = this.routes.get(path) ?? {pattern: patternOf(path), methods: new Set<string>()}
      for (const method of methods) route.methods.add(method.toUpperCase())
      this.routes.set(path, route)
    }
    const handlers = this.handlers
    return new Proxy(router, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver)
        if (typeof name !== 'string' || typeof value !== 'function') return value
        if (name === 'use' || name === 'add') {
          return (path: string, handler: EventHandler, method?: string | string[]) => {
            const methods = [method ?? 'all'].flat()
            if (methods.includes('get') && !methods.includes('head')) methods.push('head')
            note(path, methods)
            return value.call(target, path, handler, methods)
          }
        }
        if (!METHODS.has(name)) return value
        return (path: string, handler: EventHandler) => {
          note(path, name === 'get' ? ['get', 'head'] : [name])
          handlers.set(`${name.toUpperCase()} ${path}`, handler)
          if (name === 'get') target.head(path, handler)
          return value.call(target, path, handler)
        }
      },
    })
  }

  /** The `Allow` value for `path`: the methods of every route matching it. */
  allowFor(path: string): string {
    const methods = new Set<string>()
    for (const {pattern, methods: some} of this.routes.values()) {
      if (pattern.test(path)) for (const method of some) methods.add(method)
    }
    return [...methods].sort().join(', ')
  }

  /**
   * The route `method path` (registered already, its one parameter last, as
   * in `/v1/checks/external/:external_check_id`) as an app layer ahead of the
   * router: it takes exactly the requests the router would give that route
   * (one non-empty last segment, no trailing slash), sets the same parameter
   * and runs the same handler, without the router's lookup (docs/benchmarks.md,
   * "Where the time goes now"). Anything else goes on to the router.
   *
   * @example
   * app.use(...routes.direct('PUT', '/v1/checks/external/:external_check_id'))
   */
  direct(method: string, path: string): [EventHandler, {match: (path: string, event?: H3Event) => boolean}] {
    const handler = this.handlers.get(`${method} ${path}`)
    const at = path.lastIndexOf('/:') + 1
    if (!handler || at === 0 || path.slice(0, at).includes(':'))
      throw new Error(`route table: no route ${method} ${path}`)
    const prefix = path.slice(0, at)
    const name = path.slice(at + 1)
    // the app hands a layer the decoded path with its query
    const segmentEnd = (requested: string) => {
      const query = requested.indexOf('?', prefix.length)
      return query === -1 ? requested.length : query
    }
    const match = (requested: string, event?: H3Event) => {
      if (event?.method !== method || !requested.startsWith(prefix)) return false
      const end = segmentEnd(requested)
      return end > prefix.length && requested.lastIndexOf('/', end - 1) === prefix.length - 1
    }
    const direct = (event: H3Event) => {
      const requested = event.path
      event.context.params = {[name]: requested.slice(prefix.length, segmentEnd(requested))}
      return handler(event)
    }
    return [direct as EventHandler, {match}]
  }
}
