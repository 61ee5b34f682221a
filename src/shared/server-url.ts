/** A URL or key as a message quotes it: escaped, so that a `\r` in it cannot hide what is printed before it. */
export const quoted = (text: unknown): string => JSON.stringify(String(text))

/** Where `tablepay serve` listens unless told otherwise. */
export const DEFAULT_URL = 'http://127.0.0.1:4747'

/**
 * A tablepay server's URL as the client and the OpenAPI document use it:
 * without a trailing slash or `/v1`, since `serve` prints its URL with `/v1`
 * and users copy it as printed. A JavaScript caller may pass none: the
 * client then refuses it as no http(s) URL (`serverUrlProblem`).
 *
 * @example
 * serverBase('http://127.0.0.1:4747/v1/') // 'http://127.0.0.1:4747'
 */
export const serverBase = (url: string): string => String(url).replace(/\/+$/, '').replace(/\/v1$/, '')

/** `text` parsed, when it is an http or https URL: `127.0.0.1:4747` parses as a URL of scheme `127.0.0.1:`. */
const httpUrl = (text: string): URL | undefined => {
  const url = typeof text === 'string' && URL.canParse(text) ? new URL(text) : undefined
  return url?.protocol === 'http:' || url?.protocol === 'https:' ? url : undefined
}

/**
 * Whether `text` is an http or https URL.
 *
 * @example
 * isHttpUrl('http://127.0.0.1:4747') // true
 */
export const isHttpUrl = (text: string): boolean => httpUrl(text) !== undefined

/**
 * Why `text` cannot be a tablepay server's URL, as the end of a sentence that names it; undefined when it can.
 * Fetch refuses a URL with a user name or password.
 *
 * @example
 * serverUrlProblem('127.0.0.1:4747') // 'is not an http(s) URL: give the tablepay server's, e.g. http://127.0.0.1:4747'
 */
export function serverUrlProblem(text: string): string | undefined {
  const url = httpUrl(text)
  if (!url) return `is not an http(s) URL: give the tablepay server's, e.g. ${DEFAULT_URL}`
  // the parser drops a space or a control character (a \r a file written on Windows leaves after `/v1`), and
  // encodes an invisible one (a no-break space pasted from a page): either would keep the `/v1` on the base and
  // send every request to `/v1/v1/…`
  const stray = strayCharacter(text, /[^\x21-\x7e\u00a1-\u2027\u202a-\ufefe\uff00-\uffff]/, 'a URL')
  if (stray) return `${stray}: give the server's URL as \`tablepay serve\` printed it`
  if (url.username || url.password)
    return 'holds a user name or password, which no request can carry: drop them (the API key authenticates)'
  // every route would go after it (`/?x=1/v1/checks`), and answer the dashboard; an empty one (`/?`) too
  if (/[?#]/.test(text))
    return `holds a query or fragment, which no route takes after it: give the server's base URL, ${url.origin}`
  return undefined
}

/**
 * Why `key` cannot be an API key, as the end of a sentence that names it; undefined when it can. A key is
 * visible ASCII: a `\r` left from a file written on Windows would make every request fail as unsendable.
 *
 * @example
 * apiKeyProblem('tp_test_demo_write\r') // 'holds "\\r" at character 19: …'
 */
export function apiKeyProblem(key: string): string | undefined {
  const instead = 'give the key as `tablepay serve` printed it'
  // a JavaScript caller's `process.env.TABLEPAY_API_KEY`, unset
  if (typeof key !== 'string') return `is ${key === undefined ? 'missing' : `a ${typeof key}, not text`}: ${instead}`
  if (key === '') return `is empty: ${instead}`
  const stray = strayCharacter(key, /[^\x21-\x7e]/, 'a key')
  return stray && `${stray}: ${instead}`
}

/** Where `text` holds the first character `refused` matches, which `what` never holds; undefined when none. */
function strayCharacter(text: string, refused: RegExp, what: string): string | undefined {
  const at = text.search(refused)
  if (at < 0) return undefined
  return `holds ${JSON.stringify(String.fromCodePoint(text.codePointAt(at)!))} at character ${at + 1}, which ${what} never does`
}
