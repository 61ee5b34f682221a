import * as z from 'zod'
import {anyCase} from './any-case.js'
import {QUERYABLE_RULE, queryable} from './queryable-text.js'

/** An endpoint URL's schemes, as a regex source: https, or http (to this machine only: endpoints.ts). */
const SCHEMES = 'https?'

/**
 * An endpoint's URL as a record may hold it, and a snapshot's import takes it: an http(s) URL, text PostgreSQL
 * can query, and a user and password that decode, which an attempt sends as Basic authorization. An endpoint
 * stored before URLs had to be URIs (`EndpointUrl`) still restores, and its export imports again.
 */
export const StoredEndpointUrl = z
  // each check aborts: a URL gets the message of the first rule it breaks
  .url({
    protocol: new RegExp(`^${SCHEMES}$`),
    // one left out is "Required", as every field is (parse-messages.ts)
    error: (issue) =>
      issue.input === undefined
        ? undefined
        : 'must be a valid http:// or https:// URL (scheme, host, port), like https://example.com/webhooks',
    abort: true,
  })
  .max(2048, {abort: true})
  .refine(queryable, {message: QUERYABLE_RULE, abort: true})
  .refine(userInfoDecodes, {
    message: 'must hold a user and password whose %-escapes decode (they are sent decoded)',
    abort: true,
  })

/**
 * An endpoint's URL as every body that sets one takes it: a stored one that is an RFC 3986 URI too, naming a
 * host and a port an attempt can reach.
 */
export const EndpointUrl = StoredEndpointUrl.refine(
  isUri,
  'must be a URI (RFC 3986, the format the API document gives it): percent-encode a space or any other ' +
    'character (%20), and write an international host in punycode (xn--…)',
)
  .refine(namesHostAndPort, 'must name a host, and a port from 1 to 65535 if any, like https://example.com:8443/hooks')
  // zod's JSON Schema of a URL leaves its protocol out: a pattern says it, in any case as the url check takes it
  .meta({pattern: `^${anyCase(SCHEMES)}://`})

/**
 * Whether the URL names its host, and no port 0: `new URL` reads `https:///h` as the host `h` (RFC 9110 gives
 * an http(s) URI a host), and nothing can be reached at port 0.
 */
function namesHostAndPort(url: string): boolean {
  const authority = /^[^:/?#]*:\/\/([^/?#]*)/.exec(url)?.[1] ?? ''
  return authority.slice(authority.lastIndexOf('@') + 1) !== '' && new URL(url).port !== '0'
}

/**
 * Whether a URL `new URL` reads is an RFC 3986 URI too, as `format: uri` says: of its characters, each `%`
 * starting an escape, brackets only around an IPv6 host. `new URL` takes a space, `é` or `{` and escapes it.
 */
function isUri(url: string): boolean {
  // a `\` for a `/`, which `new URL` takes, is none
  const [, scheme, authority, rest] = /^([^:/?#]*:\/\/)([^/?#]*)(.*)$/s.exec(url) ?? []
  if (authority === undefined) return false
  // the host follows the last `@`: brackets around an IPv6 one, and nowhere else
  const at = authority.lastIndexOf('@')
  const host = authority.slice(at + 1).replace(/^\[[0-9A-Fa-f:.]+\](?=(?::\d*)?$)/, 'host')
  return URI_TEXT.test(scheme + authority.slice(0, at + 1) + host + rest!)
}
const URI_TEXT = /^(?:[A-Za-z0-9\-._~:/?#@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/

function userInfoDecodes(url: string): boolean {
  try {
    const {username, password} = new URL(url)
    return [username, password].every((part) => decodeURIComponent(part) !== undefined)
  } catch (error) {
    // no URL at all, which the first check says: nothing of it to decode
    return !(error instanceof URIError)
  }
}
