import {Flags} from '@oclif/core'
import {textFlag} from './filter.js'

/** The paging flags' values as the API's query parameters. */
export function pageParams(flags: {limit?: number; 'starting-after'?: string}) {
  return {limit: flags.limit, starting_after: flags['starting-after']}
}

/** `--limit` and `--starting-after`, the same on every list command. */
export function pageFlags(noun: string) {
  return {
    limit: Flags.integer({
      char: 'n',
      summary: `${noun[0]!.toUpperCase()}${noun.slice(1)} per page (1-100).`,
      min: 1,
      max: 100,
    }),
    'starting-after': textFlag({summary: `Id after which the page starts (the previous page's next cursor).`}),
  }
}
