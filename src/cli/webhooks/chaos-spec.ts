import type {ChaosInput} from '../../domain/schemas.js'
import {parseDuration} from '../../domain/duration.js'
import {quotedInput} from '../../domain/quoted-input.js'

/** A probability from 0 to 1, or an error that quotes `text`. */
export function parseProbability(text: string): number {
  const value = Number(text)
  if (text.trim() === '' || !Number.isFinite(value) || value < 0 || value > 1)
    throw new Error(`${quotedInput(text)} is not a probability: write a number from 0 to 1, like 0.3`)
  return value
}

/** A duration of zero or more seconds (`0`, `10s`, `1m`), at most an hour: the reorder window. */
export function parseWindow(text: string): number {
  const seconds = parseDuration(text)
  if (seconds > 3600) throw new Error(`${quotedInput(text)} is more than the longest reorder window, 1h`)
  return seconds
}

/** A seed: a whole number from 0 to 4294967295. */
export function parseSeed(text: string): number {
  const value = Number(text)
  if (!/^\d+$/.test(text.trim()) || value > 2 ** 32 - 1)
    throw new Error(`${quotedInput(text)} is not a seed: write a whole number from 0 to 4294967295`)
  return value
}

/**
 * `listen --chaos duplicate=0.3,reorder=10s,seed=7`: the chaos of an endpoint as one flag value.
 *
 * @example
 * parseChaosSpec('duplicate=0.3,reorder=10s') // {duplicate: 0.3, reorder_window_s: 10}
 */
export function parseChaosSpec(text: string): ChaosInput {
  const input: ChaosInput = {}
  const given = new Set<string>()
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [key, value = ''] = part.split('=', 2) as [string, string?]
    // the second would silently win over the first
    if (given.has(key)) throw new Error(`"${key}" is given twice: give each chaos setting once`)
    given.add(key)
    if (key === 'duplicate') input.duplicate = parseProbability(value)
    else if (key === 'reorder') input.reorder_window_s = parseWindow(value)
    else if (key === 'seed') input.seed = parseSeed(value)
    else
      throw new Error(`"${part}" is not a chaos setting: write duplicate=0.3, reorder=10s or seed=7, comma-separated`)
  }
  if (Object.keys(input).length === 0) throw new Error('give at least one of duplicate=P, reorder=DURATION')
  return input
}
