/**
 * The rules of a path pattern (a fault's `match.path`, a request log's `path` holding a `*`): `*` one segment,
 * `**` the rest. Without zod, so that the CLI's flags check a pattern as the API does (`PathPattern`, faults.ts)
 * without loading it: a command's start would take some 100 ms more (docs/benchmarks.md).
 */
export const PATH_PATTERN = {min: 2, max: 500, start: /^\/\S*$/} as const

export const STARTS_WITH_SLASH = 'a path pattern that starts with "/", e.g. /v1/checks/external/*'

export const REST_LAST = '"**" is the rest of the path: it can only be the last segment, e.g. /v1/checks/**'

/** `**` is the last segment, or absent: segments after it would never be compared. */
export const restLast = (pattern: string): boolean =>
  !pattern.replace(/\/+$/, '').split('/').slice(0, -1).includes('**')

/**
 * What is wrong with `pattern` by those rules; undefined when nothing is.
 *
 * @example
 * pathPatternProblem('v1/*') // 'a path pattern that starts with "/", e.g. …'
 */
export function pathPatternProblem(pattern: string): string | undefined {
  const {min, max, start} = PATH_PATTERN
  if (pattern.length < min || pattern.length > max) return `a path pattern of ${min} to ${max} characters`
  if (!start.test(pattern)) return STARTS_WITH_SLASH
  return restLast(pattern) ? undefined : REST_LAST
}
