import {Flags} from '@oclif/core'
import {quotedInput} from '../../domain/quoted-input.js'

/**
 * `--forward-to URL`: your webhook receiver, the one name of that flag in
 * every command (docs/cli.md, "Flags and exit codes"). A text that is no
 * URL an endpoint may hold (cli/receiver-url.ts) is a wrong command line
 * (exit 2) before anything is sent. The text is kept as given,
 * not normalized, since it is what the endpoint stores.
 *
 * @example
 * static override flags = {'forward-to': forwardToFlag({summary: "Your receiver's URL."})}
 */
export const forwardToFlag = Flags.custom<string>({
  helpValue: 'URL',
  parse: async (text) => {
    // loaded here: its schema (zod) would slow the start of `sign`, which takes this flag (docs/benchmarks.md)
    const {receiverUrlProblem} = await import('../receiver-url.js')
    const problem = receiverUrlProblem(text)
    if (problem) throw new Error(`${quotedInput(text)} ${problem}`)
    return text
  },
})

/** What a command that needs `--forward-to` says without it: a wrong command line (exit 2). */
export const MISSING_FORWARD_TO = [
  "Missing the receiver's URL: pass --forward-to URL.",
  {exit: 2, code: 'invalid_usage'},
] as const
