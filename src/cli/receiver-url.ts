import {EndpointUrl} from '../domain/endpoint-url.js'
import {isHttpUrl} from '../shared/server-url.js'

/**
 * Why `text` is no receiver URL, to follow it in a sentence; undefined when an endpoint may hold it. The server
 * still decides which URLs it takes (https, or plain http to this machine).
 *
 * @example
 * receiverUrlProblem('localhost:3000') // 'is not an http(s) URL: …'
 */
export function receiverUrlProblem(text: string): string | undefined {
  // `localhost:3000` parses as a URL of scheme `localhost:`: only http and https are a receiver's
  if (!isHttpUrl(text)) return "is not an http(s) URL: give your receiver's, e.g. http://localhost:3000/webhooks"
  return EndpointUrl.safeParse(text).error?.issues[0]?.message
}
