import {Flags} from '@oclif/core'
import {parseDuration} from '../../domain/duration.js'

/** A number that must be above zero; flag parsers throw so oclif reports the flag by name. */
export function positive(value: number, text: string): number {
  if (!Number.isFinite(value) || value <= 0) throw new Error(`"${text}" must be a number above zero`)
  return value
}

/** A duration above zero in seconds, or an error that quotes `text` and says how to write one. */
export function positiveDuration(text: string): number {
  const seconds = parseDuration(text)
  if (!(seconds > 0))
    throw new Error(`"${text}" is not a duration above zero: write it like 90, 45s, 5m, 2h, 1d or 1h30m`)
  return seconds
}

/** A flag whose value is a duration (`90`, `500ms`, `2h`, `1h30m`), parsed to seconds. */
export const duration = Flags.custom<number>({
  parse: async (text) => positiveDuration(text),
})

/** A flag whose value is a duration in seconds where 0 means none: no limit. */
export const durationOrNone = Flags.custom<number>({
  parse: async (text) => parseDuration(text),
})

/** A flag whose value is a comma-separated list of durations, parsed to seconds. */
export const durationList = Flags.custom<number[]>({
  parse: async (text) => text.split(',').map(positiveDuration),
})
