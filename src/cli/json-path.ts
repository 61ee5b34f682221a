const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/

/**
 * A place in a JSON document, written as jq writes it, so that
 * `jq '<path>' file.json` shows the value there. The root is `.`.
 *
 * @example
 * jsonPath(['items', 0, 'price_cents']) // '.items[0].price_cents'
 * jsonPath(['table', 'no.'])            // '.table["no."]'
 */
export function jsonPath(segments: readonly PropertyKey[]): string {
  const path = segments
    .map((segment) => {
      if (typeof segment === 'number') return `[${segment}]`
      const key = String(segment)
      return IDENTIFIER.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`
    })
    .join('')
  return path.startsWith('.') ? path : `.${path}`
}
