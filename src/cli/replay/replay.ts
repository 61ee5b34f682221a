import type {Check} from '../../domain/schemas.js'
import {jsonPath} from '../json-path.js'

/**
 * A deterministic PRNG (mulberry32): the same seed gives the same numbers
 * on every machine, so a shuffle can be reproduced with `--seed`.
 *
 * @example
 * const random = seededRandom(42)
 * random() // 0.6011…, always
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32
  }
}

/**
 * The order of the shuffled run: indexes into the scenario's pushes. With
 * `duplicates`, about a third of the pushes (at least one) are sent twice,
 * as an at-least-once POS queue would.
 *
 * @example
 * shuffledOrder(4, {seed: 7, duplicates: true}) // e.g. [2, 0, 3, 2, 1]
 */
export function shuffledOrder(count: number, {seed, duplicates}: {seed: number; duplicates: boolean}): number[] {
  const random = seededRandom(seed)
  const order = Array.from({length: count}, (_, i) => i)
  if (duplicates) {
    const extra = order.filter(() => random() < 1 / 3)
    order.push(...(extra.length > 0 ? extra : [Math.floor(random() * count)]))
  }
  // Fisher-Yates
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[order[i], order[j]] = [order[j]!, order[i]!]
  }
  return order
}

/** A check as both runs can agree on: without what differs between accounts (ids, links, times), its location as the scenario names it. */
export type ComparableCheck = Omit<Check, 'id' | 'guest_url' | 'created_at' | 'updated_at'>

/** `locationOf` maps a scratch account's location id back to the one it copies. */
export function comparableCheck(check: Check, locationOf: (id: string) => string): ComparableCheck {
  const {id: _id, guest_url: _url, created_at: _created, updated_at: _updated, ...rest} = check
  return {...rest, location_id: locationOf(rest.location_id)}
}

export interface Difference {
  external_id: string
  /** jq path inside the check; `.` when one run has no check at all. */
  path: string
  /** The value after the in-order run; absent when it has none there. */
  in_order?: unknown
  shuffled?: unknown
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

function diffValues(a: unknown, b: unknown, path: (string | number)[], out: Omit<Difference, 'external_id'>[]): void {
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) diffValues(a[i], b[i], [...path, i], out)
  } else if (isObject(a) && isObject(b)) {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) diffValues(a[key], b[key], [...path, key], out)
  } else if (a !== b) {
    out.push({
      path: jsonPath(path),
      ...(a === undefined ? {} : {in_order: a}),
      ...(b === undefined ? {} : {shuffled: b}),
    })
  }
}

/**
 * Every leaf where the two runs' final states differ, check by check
 * (`null`: the run has no such check). Empty when they converged.
 *
 * @example
 * diffStates({t12: {status: 'open'}}, {t12: {status: 'closed'}})
 * // [{external_id: 't12', path: '.status', in_order: 'open', shuffled: 'closed'}]
 */
export function diffStates(
  inOrder: Record<string, object | null>,
  shuffled: Record<string, object | null>,
): Difference[] {
  return Object.keys({...inOrder, ...shuffled}).flatMap((external_id) => {
    const out: Omit<Difference, 'external_id'>[] = []
    diffValues(inOrder[external_id] ?? undefined, shuffled[external_id] ?? undefined, [], out)
    return out.map((difference) => ({external_id, ...difference}))
  })
}
