import {Flags} from '@oclif/core'
import {parseDuration, parseDurationList} from './duration.js'

/** A number that must be above zero; flag parsers throw so oclif reports the flag by name. */
export function positive(value: number, text: string): number {
  if (!Number.isFinite(value) || value <= 0) throw new Error(`"${text}" must be a number above zero`)
  return value
}

/** A flag whose value is a duration (`90`, `500ms`, `2h`, `1h30m`), parsed to seconds. */
export const duration = Flags.custom<number>({
  parse: async (text) => positive(parseDuration(text), text),
})

/** A flag whose value is a comma-separated list of durations, parsed to seconds. */
export const durationList = Flags.custom<number[]>({
  parse: async (text) => parseDurationList(text).map((seconds) => positive(seconds, text)),
})

