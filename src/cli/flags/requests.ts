import {Flags} from '@oclif/core'
import type {RequestFilters} from '../../client/client.js'

/** The filters `logs tail` and `logs list` share, as `GET /v1/sim/requests` takes them. */
export const requestFilterFlags = {
  status: Flags.string({
    summary: 'Only answers with this status (422) or class (4xx).',
    parse: async (text) => {
      if (!/^[1-5]([0-9]{2}|xx)$/i.test(text)) throw new Error(`"${text}" is not a status (422) or a class (4xx).`)
      return text.toLowerCase()
    },
  }),
  method: Flags.string({
    summary: 'Only requests with this method (PUT).',
    parse: async (t) => t.toUpperCase(),
  }),
  path: Flags.string({summary: 'Only requests whose path starts with this (/v1/checks).'}),
}

/** The flags' values as the API's filters. */
export function requestFilters(flags: {status?: string; method?: string; path?: string}): RequestFilters {
  const {status, method, path} = flags
  return {status, method, path}
}
