/**
 * A regex source that takes the text `source` (no escapes or classes) in either case, each letter as a class of
 * both (`get` → `[Gg][Ee][Tt]`): a JSON Schema pattern has no `i` flag, so a rule that takes any case is written
 * so for the OpenAPI document to say it (docs/api.md, "The OpenAPI document").
 *
 * @example
 * new RegExp(`^${anyCase('get')}$`).test('gEt') // true
 */
export const anyCase = (source: string): string =>
  source.replace(/[A-Za-z]/g, (letter) => `[${letter.toUpperCase()}${letter.toLowerCase()}]`)
