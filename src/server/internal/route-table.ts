import type {EventHandler, Router} from 'h3'
import {withoutTrailingSlash} from './request-path.js'

const METHODS = new Set(['get', 'head', 'post', 'put', 'patch', 'delete', 'options', 'connect', 'trace'])

/** `/checks/{id}` as the router writes it: `/v1/checks/:id`. */
export const routerPath = (path: string) => `/v1${path.replace(/\{(\w+)\}/g, ':$1')}`

/**
 * `/v1/checks/:id` as a RegExp of the paths, one trailing slash cut off, that the router gives it: as h3's
 * router (radix3) does, a parameter takes an empty segment too (`/v1/checks//claims`), whose handler then
 * answers. What auth lets through without its scope rests on this being no narrower than the router.
 */
export function patternOf(path: string): RegExp {
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const segments = path.split('/').map((s) => (s.startsWith(':') ? '[^/]*' : s === '**' ? '.*' : escape(s)))
  return new RegExp(`^${segments.join('/')}$`)
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
    return [...this.#methodsAt(path)].sort().join(', ')
  }

  /** Whether a route answers `method` (in capitals) at `path`, not a 404 or a 405. */
  takes(method: string, path: string): boolean {
    const methods = this.#methodsAt(path)
    return methods.has(method) || methods.has('ALL')
  }

  #methodsAt(path: string): Set<string> {
    const methods = new Set<string>()
    // the router cuts one trailing slash off before it looks (`/v1/health/` is `/v1/health`)
    const routed = withoutTrailingSlash(path)
    for (const {pattern, methods: some} of this.routes.values()) {
      if (pattern.test(routed)) for (const method of some) methods.add(method)
    }
    return methods
  }

  /**
   * The route `method path` (registered already, its one parameter last, as
   * in `/v1/checks/external/:external_check_id`), to be taken ahead of the
   * app (internal/lane.ts): `match` gives its parameters for exactly the
   * requests the router would give that route (one non-empty last segment,
   * no trailing slash), and undefined for anything else, which goes on to the
   * app. A URL with a percent escape goes on too: the app decodes paths
   * before routing, and the lane does not.
   *
   * @example
   * const push = routes.direct('PUT', '/v1/checks/external/:external_check_id')
   * push.match('PUT', '/v1/checks/external/T12') // {external_check_id: 'T12'}
   */
  direct(method: string, path: string): DirectRoute {
    const handler = this.handlers.get(`${method} ${path}`)
    const at = path.lastIndexOf('/:') + 1
    if (!handler || at === 0 || path.slice(0, at).includes(':'))
      throw new Error(`route table: no route ${method} ${path}`)
    const prefix = path.slice(0, at)
    const name = path.slice(at + 1)
    const match = (requested: string | undefined, url: string | undefined) => {
      if (requested !== method || !url?.startsWith(prefix) || url.includes('%')) return undefined
      const query = url.indexOf('?', prefix.length)
      const end = query === -1 ? url.length : query
      if (end === prefix.length || url.lastIndexOf('/', end - 1) !== prefix.length - 1) return undefined
      return {[name]: url.slice(prefix.length, end)}
    }
    return {match, handler}
  }
}

/** A route taken ahead of the app: see `RouteTable.direct`. */
export interface DirectRoute {
  /** The route's parameters when the request (its method, its URL as sent) is one the route answers. */
  match(method: string | undefined, url: string | undefined): Record<string, string> | undefined
  handler: EventHandler
}
