import {Flags} from '@oclif/core'
import {EVENT_TYPES} from '../../domain/constants.js'
import type {EventType} from '../../domain/schemas.js'

/**
 * `--event-type`, `-e`: the one name of the event-type filter in every
 * command (docs/cli.md, "Flags and exit codes"). `--events` and `--type`, its names before, still work.
 */
export const EVENT_TYPE_FLAG: {char: 'e'; aliases: string[]} = {char: 'e', aliases: ['events', 'type']}

/**
 * `--event-type check.created,claim.created`: the event
 * types an endpoint receives. Left out, it is every type: a developer
 * watching their receiver wants to see everything.
 */
export const eventTypesFlag = Flags.custom<EventType[]>({
  ...EVENT_TYPE_FLAG,
  helpValue: 'TYPE,…',
  summary: `Event types to receive, comma-separated. Default: all (${EVENT_TYPES.join(', ')}).`,
  parse: async (text) => {
    const types = text
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean)
    const unknown = types.filter((t) => !(EVENT_TYPES as readonly string[]).includes(t))
    if (unknown.length > 0 || types.length === 0)
      throw new Error(`unknown event type ${unknown.join(', ') || '(none)'}; choose from ${EVENT_TYPES.join(', ')}`)
    return types as EventType[]
  },
})

/** The flag's value, or every type when it was left out. */
export function eventTypesOf(types: EventType[] | undefined): EventType[] {
  return types ? [...new Set(types)] : [...EVENT_TYPES]
}
