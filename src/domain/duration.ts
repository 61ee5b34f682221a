import {quotedInput} from './quoted-input.js'

const UNIT_SECONDS: Record<string, number> = {ms: 0.001, s: 1, m: 60, h: 3600, d: 86_400}

/**
 * A duration as people write it, in seconds: `90` (seconds), `500ms`, `45s`,
 * `5m`, `2h`, `1d`, or a combination such as `1h30m`.
 *
 * @example
 * parseDuration('1h30m') // 5400
 */
export function parseDuration(text: string): number {
  const input = text.trim()
  if (/^\d+(\.\d+)?$/.test(input)) return Number(input)
  const parts = [...input.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)]
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== input) {
    throw new Error(`${quotedInput(text)} is not a duration: write it like 90, 500ms, 45s, 5m, 2h, 1d or 1h30m`)
  }
  return parts.reduce((sum, [, value, unit]) => sum + Number(value) * UNIT_SECONDS[unit!]!, 0)
}

/**
 * A duration of whole seconds from 0 to `most`, for a value that travels as whole seconds (a signature's
 * tolerance, a `Retry-After`), or an error that quotes `text` and says how to write one.
 *
 * @example
 * wholeSeconds('5m', 86_400) // 300
 */
export function wholeSeconds(text: string, most: number, limit = formatDuration(most)): number {
  const seconds = parseDuration(text)
  // `0.1m` is 6.000000000000001: a float's rounding away from whole is whole, a fraction written (`0.4ms`) is not
  const whole = Math.round(seconds)
  if (Math.abs(seconds - whole) > 1e-9 * Math.max(1, seconds))
    throw new Error(`${quotedInput(text)} is not whole seconds: write it like 300, 45s, 5m or 1h`)
  if (whole > most) throw new Error(`${quotedInput(text)} is longer than ${limit}`)
  return whole
}

/**
 * A duration in seconds as whole milliseconds, at least 1 when above zero: a timer, a signal's timeout and a
 * fault's delay take no finer, and a signal's timeout refuses a fraction (`1.001 * 1000` is 1000.9999999999999).
 *
 * @example
 * wholeMs(1.001) // 1001
 */
export const wholeMs = (seconds: number): number => (seconds > 0 ? Math.max(1, Math.round(seconds * 1000)) : 0)

/** Seconds as the shortest exact text `parseDuration` reads back: `1h30m`, `45s`, `500ms`. */
export function formatDuration(seconds: number): string {
  if (seconds === 0) return '0s'
  // whole seconds and milliseconds apart: in milliseconds alone, seconds past 2^53 / 1000 lose their last digits
  let rest = Math.floor(seconds)
  let ms = Math.round((seconds - rest) * 1000)
  // 1.9996 s is 2 s, not 1 s and 1000 ms
  if (ms === 1000) [rest, ms] = [rest + 1, 0]
  const parts: string[] = []
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`)
      rest %= size
    }
  }
  if (ms > 0) parts.push(`${ms}ms`)
  return parts.join('')
}
