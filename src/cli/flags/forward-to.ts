import {Flags} from '@oclif/core'
import {isHttpUrl} from '../../shared/server-url.js'
import {EndpointUrl} from '../../domain/endpoint-url.js'

/**
 * `--forward-to URL`: your webhook receiver, the one name of that flag in
 * every command (docs/cli.md, "Flags and exit codes"). A text that is no
 * URL an endpoint may hold (`receiverUrlProblem`) is a wrong command line
 * (exit 2) before anything is sent; the server still decides which URLs it
 * takes (https, or plain http to this machine). The text is kept as given,
 * not normalized, since it is what the endpoint stores.
 *
 * @example
 * static override flags = {'forward-to': forwardToFlag({summary: "Your receiver's URL."})}
 */
export const forwardToFlag = Flags.custom<string>({
  helpValue: 'URL',
  parse: async (text) => {
    const problem = receiverUrlProblem(text)
    if (problem) throw new Error(`"${text}" ${problem}`)
    return text
  },
})

/** Why `text` is no receiver URL, to follow it in a sentence; undefined when an endpoint may hold it. */
export function receiverUrlProblem(text: string): string | undefined {
  // `localhost:3000` parses as a URL of scheme `localhost:`: only http and https are a receiver's
  if (!isHttpUrl(text)) return "is not an http(s) URL: give your receiver's, e.g. http://localhost:3000/webhooks"
  return EndpointUrl.safeParse(text).error?.issues[0]?.message
}

/** What a command that needs `--forward-to` says without it: a wrong command line (exit 2). */
export const MISSING_FORWARD_TO = [
  "Missing the receiver's URL: pass --forward-to URL.",
  {exit: 2, code: 'invalid_usage'},
] as const
