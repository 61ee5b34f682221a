import {Args} from '@oclif/core'

/**
 * A positional argument, never filled from stdin. oclif reads stdin for an argument left out, so
 * `… | tablepay checks lint` (the `-` forgotten) linted the piped JSON as a file's path, and a loop
 * reading lines lost them to `faults clear`'s optional ID. A command that takes stdin says so with `-`.
 *
 * @example
 * static override args = {ID: arg({description: 'Event id (evt_…).', required: true})}
 */
export const arg = ((options: Parameters<typeof Args.string>[0]) =>
  Args.string({...options, ignoreStdin: true})) as typeof Args.string
