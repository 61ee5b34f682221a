/**
 * The `${…}` references of a scenario (docs/scenarios.md, "References"):
 * `${run}`, `${location}`, `${receiver}`, and `${step.field}`, a field of an
 * earlier step's answer. Pure: finding them, and putting values in their place.
 */

/** The references that name no step. */
export const BUILTIN_REFERENCES = ['run', 'location', 'receiver'] as const
export type BuiltinReference = (typeof BUILTIN_REFERENCES)[number]

/** A step id: what `${id.field}` names. */
export const STEP_ID = /^[A-Za-z_][A-Za-z0-9_-]*$/

/** How many characters `${run}` puts in: a run's suffix, 8 hex digits. */
export const RUN_LENGTH = 8

const REFERENCE = /\$\{([^}]*)\}/g
const PARTS = /^([A-Za-z_][A-Za-z0-9_-]*)((?:\.[A-Za-z0-9_-]+)*)$/

/** One reference as written: `${open.items.0.id}` → `{text, name: 'open', field: ['items', '0', 'id']}`. */
export interface Reference {
  text: string
  name: string
  field: string[]
}

/**
 * Every reference in a string, or why one cannot be read.
 *
 * @example
 * referencesIn('t7-${run}') // [{text: '${run}', name: 'run', field: []}]
 */
export function referencesIn(text: string): (Reference | {text: string; malformed: true})[] {
  const found: (Reference | {text: string; malformed: true})[] = [...text.matchAll(REFERENCE)].map(([whole, inner]) => {
    const parts = PARTS.exec(inner!)
    if (!parts) return {text: whole, malformed: true as const}
    return {text: whole, name: parts[1]!, field: parts[2] ? parts[2].slice(1).split('.') : []}
  })
  // one never closed (`${open.id`) would be sent as it is written
  const rest = text.replace(REFERENCE, '')
  if (rest.includes('${')) found.push({text: rest.slice(rest.indexOf('${')), malformed: true})
  return found
}

/**
 * `text` with each reference replaced by `placeholder`: what a rule on the
 * resolved text can judge before the run, when the values are not known yet.
 *
 * @example
 * withReferencesAs('lunch-${run}', 'x') // 'lunch-x'
 */
export const withReferencesAs = (text: string, placeholder: string): string => text.replace(REFERENCE, placeholder)

/**
 * The path of the first `__proto__` field in a JSON value, undefined when it has none: `JSON.parse` keeps one
 * as a field and zod drops it, so a step would send, or expect, less than it says.
 */
export function protoFieldPath(value: unknown, path: (string | number)[] = []): (string | number)[] | undefined {
  if (value === null || typeof value !== 'object') return undefined
  for (const [key, item] of Object.entries(value)) {
    const at = [...path, Array.isArray(value) ? Number(key) : key]
    const found = key === '__proto__' && !Array.isArray(value) ? at : protoFieldPath(item, at)
    if (found) return found
  }
  return undefined
}

/** Every string in a JSON value with its path (object keys and array indexes): where references can be. */
export function stringsIn(value: unknown, path: (string | number)[] = []): {path: (string | number)[]; text: string}[] {
  if (typeof value === 'string') return [{path, text: value}]
  if (Array.isArray(value)) return value.flatMap((item, i) => stringsIn(item, [...path, i]))
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([key, item]) => stringsIn(item, [...path, key]))
  return []
}

/** The value at `field` inside `value`, or undefined when there is none. */
export function fieldOf(value: unknown, field: string[]): unknown {
  let here = value
  for (const key of field) {
    // its own fields only: `${open.constructor}` names none
    if (here === null || typeof here !== 'object' || !Object.hasOwn(here, key)) return undefined
    here = (here as Record<string, unknown>)[key]
  }
  return here
}

/** A reference whose value the run does not have: the step answered without that field, or did not run. */
export class UnresolvedReferenceError extends Error {}

/**
 * `value` with every reference replaced by what `lookup` gives for it. A
 * string that is one reference and nothing else takes the value's own type
 * (`"${pay.amount_cents}"` → 1200); inside a longer string it is written as
 * text (an object as JSON).
 *
 * @throws {UnresolvedReferenceError} when `lookup` has no value for a reference.
 * @example
 * resolveReferences({id: 't7-${run}'}, (ref) => (ref.name === 'run' ? 'k3x9' : undefined)) // {id: 't7-k3x9'}
 */
export function resolveReferences(value: unknown, lookup: (reference: Reference) => unknown): unknown {
  const valueOf = (reference: Reference) => {
    const found = lookup(reference)
    if (found === undefined) throw new UnresolvedReferenceError(`${reference.text} has no value in this run`)
    return found
  }
  if (typeof value === 'string') {
    const references = referencesIn(value).filter((r): r is Reference => !('malformed' in r))
    if (references.length === 1 && references[0]!.text === value) return valueOf(references[0]!)
    // one pass over the text as written: a value that holds `${…}` itself is text, not a reference to fill in;
    // a function, so a `$` in the value is not read as a replacement pattern
    return value.replace(REFERENCE, (whole: string) => {
      const reference = references.find((r) => r.text === whole)
      if (reference === undefined) return whole
      const found = valueOf(reference)
      return typeof found === 'string' ? found : JSON.stringify(found)
    })
  }
  if (Array.isArray(value)) return value.map((item) => resolveReferences(item, lookup))
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolveReferences(item, lookup)]))
  return value
}
