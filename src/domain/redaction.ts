// Secrets and keys in what the request log keeps and the access line prints (docs/api.md, "The request log").

/** What a secret is replaced by, wherever it appears in an entry or the access line (docs/api.md, "The request log"). */
export const REDACTED = '[redacted]'
// in a body kept as text: a JSON string, and a field's name with its string value (cut off at the end, maybe)
const JSON_STRING = /"(?:[^"\\]|\\.)*"/g
const STRING_FIELD = /("((?:[^"\\]|\\.)*)"\s*:\s*)"(?:[^"\\]|\\.)*"?/g
// a signing secret (its characters as SECRET_FORMAT of endpoints.ts allows them) or an API key; `+` after
// tp_test_ so that a key hint (`tp_test_…rite`) is left as it is
const SECRET_TOKEN = /whsec_[A-Za-z0-9+/=_-]*|tp_test_[A-Za-z0-9_-]+/g

/**
 * `text` with every `whsec_…` secret and `tp_test_…` key replaced by `[redacted]`: what the log keeps of a
 * path, a query, an Idempotency-Key, and what the access line prints.
 *
 * @example
 * redactTokens('/v1/x/whsec_abc?k=tp_test_demo_write') // '/v1/x/[redacted]?k=[redacted]'
 */
export const redactTokens = (text: string): string =>
  text.includes('whsec_') || text.includes('tp_test_') ? text.replace(SECRET_TOKEN, REDACTED) : text

/** `secret` values, and any `whsec_…` or `tp_test_…` token in a value or a key, replaced, at any depth. */
export function redactSecrets(value: unknown): unknown {
  if (typeof value === 'string') return redactTokens(value)
  if (Array.isArray(value)) return value.map(redactSecrets)
  if (value === null || typeof value !== 'object') return value
  // fromEntries defines each key as data: a body's "__proto__" stays a field instead of becoming the prototype
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      redactTokens(key),
      key === 'secret' ? REDACTED : redactSecrets(inner),
    ]),
  )
}

/**
 * A body kept as text, its secrets redacted as a parsed one's are: a field named `secret` however its name is
 * escaped (`"sec\u0072et"`), and a token written with escapes (`whsec\u005f…`), which a parser reads as one.
 */
export function redactText(text: string): string {
  const fields = text.replace(STRING_FIELD, (field, head: string, name: string) =>
    unescaped(name) === 'secret' ? `${head}"${REDACTED}"` : field,
  )
  const strings = fields.includes('\\')
    ? fields.replace(JSON_STRING, (string) => {
        const value = unescaped(string.slice(1, -1))
        return redactTokens(value) === value ? string : JSON.stringify(redactTokens(value))
      })
    : fields
  return redactTokens(strings)
}

/** A JSON string's text, its escapes decoded; as written when one is no JSON escape. */
function unescaped(text: string): string {
  if (!text.includes('\\')) return text
  try {
    return JSON.parse(`"${text}"`) as string
  } catch {
    return text
  }
}
