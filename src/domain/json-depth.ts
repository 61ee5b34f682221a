/**
 * How deep a JSON value may nest where tablepay walks it recursively (a scenario's steps, a body the request
 * log shows): no body or answer of the API nests a tenth as deep.
 */
export const MAX_NESTING = 64

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
