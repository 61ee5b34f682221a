import {METHODS} from 'node:http'
import {Flags} from '@oclif/core'
import type {RequestFilters, TablepayClient} from '../../client/client.js'
import {CHECK_NAMES, checkFlag, type CheckRef} from '../check-ref.js'
import {MAX_PATH_FILTER} from '../../domain/constants.js'
import {methodOf, nonEmpty, pathPattern} from './filter.js'
import {quotedInput} from '../../domain/quoted-input.js'

/** The start of a path as the log holds paths: from their `/`, and no longer than the API's filter takes. */
function pathStart(text: string): string {
  if (!nonEmpty(text).startsWith('/'))
    throw new Error(`${quotedInput(text)} does not start with /, as every path does (/v1/checks).`)
  if (text.length > MAX_PATH_FILTER) throw new Error(`is longer than ${MAX_PATH_FILTER} characters, which no path is.`)
  return text
}

/** The filters `logs tail` and `logs list` share, as `GET /v1/sim/requests` takes them. */
export const requestFilterFlags = {
  status: Flags.string({
    summary: 'Only answers with this status (422) or class (4xx).',
    parse: async (text) => {
      if (!/^[1-5]([0-9]{2}|xx)$/i.test(text))
        throw new Error(`${quotedInput(text)} is not a status (422) or a class (4xx).`)
      return text.toLowerCase()
    },
  }),
  method: Flags.string({
    summary: 'Only requests with this method (PUT), in any case.',
    // any method Node's parser takes is logged (one no route takes as a 405): another (`PTU`) would match nothing
    parse: async (text) => methodOf(text, METHODS, 'the HTTP methods (GET, POST, PUT, PATCH, DELETE, OPTIONS…)'),
  }),
  path: Flags.string({
    summary: 'Only requests whose path starts with this (/v1/checks), or matches a pattern as faults add --path takes.',
    // with a `*`, a pattern by the faults' rules, as the API reads it (RequestFilters)
    parse: async (text) => (text.includes('*') ? pathPattern(text) : pathStart(text)),
  }),
  check: checkFlag({summary: `Only requests about this check: ${CHECK_NAMES}.`}),
}

/**
 * The flags' values as the API's filters: `--check` as the check's id, which the log records
 * (a POS id unknown to the account is the API's 404, not a filter that matches nothing).
 *
 * @example
 * await requestFilters(client, {status: '4xx', check: new CheckRef('t12')})
 */
export async function requestFilters(
  client: TablepayClient,
  flags: {status?: string; method?: string; path?: string; check?: CheckRef},
): Promise<RequestFilters> {
  const {status, method, path, check} = flags
  return {status, method, path, check_id: await check?.id(client)}
}
