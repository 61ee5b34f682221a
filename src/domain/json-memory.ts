// What JSON.parse would build from a text, weighed before it is parsed. A
// large text of small values takes many times its size in memory (an empty
// object of 3 bytes takes 64), and a list of more than 134 million values
// ends the whole process: a server refuses such a document instead of
// parsing it (docs/snapshots.md, "Export and import").

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const COLON = 0x3a
const BRACE = 0x7b
const BRACKET = 0x5b

/** Bytes an object or an array takes at most, with its place in its parent: an empty object takes 64. */
const CONTAINER_BYTES = 128
/** Bytes a value or a property takes at most beyond its text, per comma or colon. */
const ITEM_BYTES = 40

/** The most memory a document may take once parsed: an export of 256 MiB, the most an import takes, takes about 1.5 GiB by `parsedMemory`. */
export const PARSED_MEMORY_MAX = 1.75 * 1024 ** 3

/**
 * About the most memory, in bytes, that JSON.parse takes for `text`: from its
 * objects and arrays, its commas and colons (one each per value beyond the
 * first of a list, and per property), outside strings, and its length. A
 * ceiling, not a measure: an export takes a sixth of it.
 *
 * @example
 * parsedMemory('[{},{}]') // 2 objects, 1 array, 1 comma, 7 characters: 431
 */
export function parsedMemory(text: string): number {
  let containers = 0
  let items = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code === QUOTE) i = stringEnd(text, i)
    else if (code === BRACE || code === BRACKET) containers++
    else if (code === COMMA || code === COLON) items++
  }
  return containers * CONTAINER_BYTES + items * ITEM_BYTES + text.length
}

/** Where the string that opens at `start` closes: its next quote that no backslash escapes (the text's end if none). */
function stringEnd(text: string, start: number): number {
  let end = text.indexOf('"', start + 1)
  while (end !== -1 && escaped(text, end)) end = text.indexOf('"', end + 1)
  return end === -1 ? text.length : end
}

/** Whether the character at `at` follows an odd run of backslashes. */
function escaped(text: string, at: number): boolean {
  let before = at - 1
  while (text.charCodeAt(before) === BACKSLASH) before--
  return (at - before) % 2 === 0
}

/**
 * Why `text` is not parsed, when it would take more than PARSED_MEMORY_MAX;
 * undefined when it may be.
 *
 * @example
 * tooLargeToParse('[{},{}]') // undefined
 */
export function tooLargeToParse(text: string): string | undefined {
  // a character weighs at most an array's bytes and its own: a text this short is never too large, nor scanned
  if (text.length * (CONTAINER_BYTES + 1) <= PARSED_MEMORY_MAX) return undefined
  const memory = parsedMemory(text)
  if (memory <= PARSED_MEMORY_MAX) return undefined
  const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(2)} GiB`
  return `it would take up to ${gib(memory)} of memory once read, more than the ${gib(PARSED_MEMORY_MAX)} a document may take (many small values take many times their size)`
}
