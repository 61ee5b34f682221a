/**
 * How deep a JSON value sent to tablepay may nest where it is walked recursively (a scenario's steps, a body
 * the request log shows): no body or answer of the API nests a tenth as deep. A snapshot's records have a
 * tighter bound of their own (snapshots.ts).
 */
export const MAX_NESTING = 64

/** Whether `value` nests deeper than `depth` levels: `pathPast` without the path, for a hot path. */
export function nestsPast(value: unknown, depth: number): boolean {
  const values: unknown[] = [value]
  const levels: number[] = [0]
  while (values.length > 0) {
    const next = values.pop()
    const level = levels.pop()!
    if (next === null || typeof next !== 'object') continue
    if (level >= depth) return true
    for (const item of Object.values(next)) {
      values.push(item)
      levels.push(level + 1)
    }
  }
  return false
}

/**
 * The path (object keys and array indexes) to a value nested deeper than `depth` levels in `value`, or
 * undefined when none is. Read without recursion, so a value of any depth is judged: the functions that
 * recurse are given values no deeper than MAX_NESTING.
 */
export function pathPast(value: unknown, depth: number): (string | number)[] | undefined {
  const stack: {value: unknown; path: (string | number)[]}[] = [{value, path: []}]
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (next.value === null || typeof next.value !== 'object') continue
    if (next.path.length >= depth) return next.path
    for (const [key, item] of Object.entries(next.value))
      stack.push({value: item, path: [...next.path, Array.isArray(next.value) ? Number(key) : key]})
  }
  return undefined
}

/**
 * What is wrong with how deep `value` nests, to follow its source in a sentence; undefined within MAX_NESTING:
 * for a value read from a file or given to the client, which JSON.stringify would overflow the stack writing out.
 *
 * @example
 * nestingProblem(JSON.parse('[[[1]]]')) // undefined
 */
export const nestingProblem = (value: unknown): string | undefined =>
  nestsPast(value, MAX_NESTING) ? `nests deeper than ${MAX_NESTING} levels, which no tablepay body does` : undefined
