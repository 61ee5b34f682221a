import {Flags} from '@oclif/core'
import {isHttpUrl} from '../../client/config.js'

/**
 * `--forward-to URL`: your webhook receiver, the one name of that flag in
 * every command (README "Flags"). A text that is no http(s) URL is a wrong
 * command line (exit 2) before anything is sent; the server still decides
 * which URLs it takes (https, or plain http to this machine). The text is
 * kept as given, not normalized, since it is what the endpoint stores.
 *
 * @example
 * static override flags = {'forward-to': forwardToFlag({summary: "Your receiver's URL."})}
 */
export const forwardToFlag = Flags.custom<string>({
  helpValue: 'URL',
  parse: async (text) => {
    // `localhost:3000` parses as a URL of scheme `localhost:`: only http and https are a receiver's
    if (!isHttpUrl(text))
      throw new Error(`"${text}" is not an http(s) URL: give your receiver's, e.g. http://localhost:3000/webhooks`)
    return text
  },
})

/** What a command that needs `--forward-to` says without it: a wrong command line (exit 2). */
export const MISSING_FORWARD_TO = [
  "Missing the receiver's URL: pass --forward-to URL.",
  {exit: 2, code: 'invalid_usage'},
] as const
