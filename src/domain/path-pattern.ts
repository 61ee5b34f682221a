/**
 * The rules of a path pattern (a fault's `match.path`, a request log's `path` holding a `*`): `*` one segment,
 * `**` the rest. Without zod, so that the CLI's flags check a pattern as the API does (`PathPattern`, faults.ts)
 * without loading it: a command's start would take some 100 ms more (docs/benchmarks.md).
 */
export const PATH_PATTERN = {
  min: 2,
  max: 500,
  start: /^\/\S*$/,
  /**
   * `**` is the last segment, or absent: segments after it would never be compared. A regex, which the API
   * document gives as its pattern: no `**` segment (first, or after a `/`) is followed by slashes and then
   * anything else (slashes at the end match nothing more).
   */
  restLast: /^(?!(?:[\s\S]*\/)?\*\*\/+[^/])/,
} as const

export const STARTS_WITH_SLASH = 'a path pattern that starts with "/", e.g. /v1/checks/external/*'

export const REST_LAST = '"**" is the rest of the path: it can only be the last segment, e.g. /v1/checks/**'

/**
 * What is wrong with `pattern` by those rules; undefined when nothing is.
 *
 * @example
 * pathPatternProblem('v1/*') // 'a path pattern that starts with "/", e.g. …'
 */
export function pathPatternProblem(pattern: string): string | undefined {
  const {min, max, start, restLast} = PATH_PATTERN
  if (pattern.length < min || pattern.length > max) return `a path pattern of ${min} to ${max} characters`
  if (!start.test(pattern)) return STARTS_WITH_SLASH
  return restLast.test(pattern) ? undefined : REST_LAST
}
