import {Flags} from '@oclif/core'
import {formatDuration, parseDuration, wholeSeconds} from '../../domain/duration.js'
import {quotedInput} from '../../domain/quoted-input.js'

/** A number that must be above zero; flag parsers throw so oclif reports the flag by name. */
export function positive(value: number, text: string): number {
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${quotedInput(text)} must be a number above zero`)
  return value
}

/** A duration above zero in seconds, or an error that quotes `text` and says how to write one. */
export function positiveDuration(text: string): number {
  const seconds = parseDuration(text)
  if (!(seconds > 0))
    throw new Error(`${quotedInput(text)} is not a duration above zero: write it like 90, 45s, 5m, 2h, 1d or 1h30m`)
  return seconds
}

/** A duration above zero of at most `most` seconds (`why` says what sets it), or an error that quotes `text`. */
export function durationUpTo(text: string, most: number, why: string): number {
  const seconds = positiveDuration(text)
  if (seconds > most) throw new Error(`${quotedInput(text)} is longer than ${formatDuration(most)}, ${why}`)
  return seconds
}

/** The longest a timer waits, 2^31 - 1 ms (about 24.8 days): past it, Node's fires at once. */
const LONGEST_TIMER_S = (2 ** 31 - 1) / 1000
/** How far back a `--since` reaches: a date every field and column reads. */
const FURTHEST_BACK_S = 100 * 365 * 86_400

/** A flag whose value is a duration (`90`, `500ms`, `2h`, `1h30m`), parsed to seconds. */
export const duration = Flags.custom<number>({
  parse: async (text) => positiveDuration(text),
})

/** How long a timer waits: a duration of at most about 24.8 days. */
const timerSeconds = (text: string) => durationUpTo(text, LONGEST_TIMER_S, 'the longest a timer waits')

/** A flag whose value is how long a timer waits. */
export const timerDuration = Flags.custom<number>({parse: async (text) => timerSeconds(text)})

/** A flag whose value is how far back from now (`--since`): a duration of at most 100 years. */
export const pastDuration = Flags.custom<number>({
  parse: async (text) => durationUpTo(text, FURTHEST_BACK_S, 'the furthest back it reaches'),
})

/** A flag whose value is how long a timer waits, where 0 means no limit: read it with `wholeMs`. */
export const durationOrNone = Flags.custom<number>({
  parse: async (text) => (parseDuration(text) === 0 ? 0 : timerSeconds(text)),
})

/** A flag whose value is a comma-separated list of durations, parsed to seconds. */
export const durationList = Flags.custom<number[]>({
  parse: async (text) => text.split(',').map(positiveDuration),
})

/**
 * A flag whose value travels as whole seconds of at most `most` (`300`, `5m`): a signature's tolerance, a
 * `Retry-After`. `limit` names `most` in the error, where a duration would not read (`104249991374d7h36m31s`).
 */
export const secondsUpTo = (most: number, limit?: string) =>
  Flags.custom<number>({helpValue: 'DURATION', parse: async (text) => wholeSeconds(text, most, limit)})
