/**
 * A file's JSON text without the byte order mark that some editors write first (Notepad, Windows PowerShell's
 * UTF-8): JSON.parse refuses it, and RFC 8259 lets a reader ignore it. Not for text the API judges as sent
 * (`checks lint`): the server refuses a body that starts with it.
 *
 * @example
 * JSON.parse(withoutBom('\uFEFF{"a": 1}')) // {a: 1}
 */
export const withoutBom = (text: string): string => (text.startsWith('\uFEFF') ? text.slice(1) : text)

/**
 * How deep a value read from a file may nest: far past any body of the API (a check's nests 4 levels), far short of
 * the about 5,000 at which writing it back out as JSON overflows the stack.
 */
export const MAX_NESTING = 1000

/**
 * What is wrong with how deep `value` nests, to follow its source in a sentence; undefined when it is within
 * `MAX_NESTING`. Walked without recursion, level by level: for a value JSON.parse made, or one JSON.stringify
 * could not write for its depth (a value that refers to itself is JSON.stringify's TypeError, never asked here).
 *
 * @example
 * nestingProblem(JSON.parse('[[[1]]]')) // undefined
 */
export function nestingProblem(value: unknown): string | undefined {
  let level: unknown[] = [value]
  for (let depth = 0; level.length > 0; depth++) {
    if (depth > MAX_NESTING) return `nests deeper than ${MAX_NESTING} levels, which no tablepay body does`
    level = level.flatMap((v) => (typeof v === 'object' && v !== null ? Object.values(v) : []))
  }
  return undefined
}
