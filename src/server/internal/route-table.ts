import type {EventHandler, Router} from 'h3'

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

  /** `router`, noting the path and method of every route added through it, and adding HEAD to each GET. */
  recording(router: Router): Router {
    const note = (path: string, methods: string[]) => {
      const route = this.routes.get(path) ?? {pattern: patternOf(path), methods: new Set<string>()}
      for (const method of methods) route.methods.add(method.toUpperCase())
      this.routes.set(path, route)
    }
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
}
