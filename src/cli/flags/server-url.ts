import {Flags} from '@oclif/core'
import {quoted, serverUrlProblem} from '../../shared/server-url.js'

/**
 * A tablepay server's URL, with or without `/v1`: `--url` of every command that talks to one, and the server
 * `openapi --server-url` names. A text no client could call (`127.0.0.1:4747`, a query, `javascript:`) is a
 * wrong command line (exit 2), not a server that cannot be reached.
 *
 * @example
 * static override flags = {'server-url': serverUrlFlag({summary: 'The server the document names.'})}
 */
export const serverUrlFlag = Flags.custom<string>({
  helpValue: 'URL',
  parse: async (text) => {
    const problem = serverUrlProblem(text)
    if (problem) throw new Error(`${quoted(text)} ${problem}`)
    return text
  },
})
