/** One place where an answer does not hold what a scenario expects: a jq path, what was expected, what was got. */
export interface SubsetDifference {
  path: string
  expected: unknown
  /** Absent when the answer has nothing there. */
  got?: unknown
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/
const step = (path: string, key: string | number) =>
  typeof key === 'number' ? `${path}[${key}]` : KEY.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`

/**
 * Where `got` fails to contain `expected` (docs/scenarios.md, "JSON
 * subsets"): an object holds when each of its keys holds in `got`'s, an
 * array when each of its elements holds in some element of `got`'s, any
 * other value when it is equal. Empty when it all holds.
 *
 * @example
 * subsetDifferences({status: 'open'}, {status: 'closed', id: 'chk_1'})
 * // [{path: '.status', expected: 'open', got: 'closed'}]
 */
export function subsetDifferences(expected: unknown, got: unknown, path = ''): SubsetDifference[] {
  const here = path || '.'
  const gotPart = got === undefined ? {} : {got}
  if (isObject(expected)) {
    if (!isObject(got)) return [{path: here, expected, ...gotPart}]
    // own fields only: `constructor` is no field of an answer
    return Object.entries(expected).flatMap(([key, value]) =>
      subsetDifferences(value, Object.hasOwn(got, key) ? got[key] : undefined, step(path, key)),
    )
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(got)) return [{path: here, expected, ...gotPart}]
    // each element in a later element than the one before: the earliest that fits leaves the most for the rest
    let next = 0
    const differences: SubsetDifference[] = []
    expected.forEach((item, i) => {
      const found = got.findIndex((candidate, j) => j >= next && subsetDifferences(item, candidate).length === 0)
      if (found === -1)
        differences.push({path: step(path, i), expected: item, ...(i < got.length ? {got: got[i]} : {})})
      else next = found + 1
    })
    return differences
  }
  // not Object.is: JSON's -0 is 0 (JSON.stringify writes it so)
  return expected === got ? [] : [{path: here, expected, ...gotPart}]
}
