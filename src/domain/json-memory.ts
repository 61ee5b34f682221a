// What JSON.parse would build from a text, weighed before it is parsed. A
// large text of small values takes many times its size in memory (an empty
// object of 3 bytes takes 64), and a list of more than 134 million values
// ends the whole process; numbers sent with an exponent are written back
// longer (1e20 with 21 digits), and a document the store cannot write as one
// string cannot be kept. A server refuses such a document instead of parsing
// it (docs/snapshots.md, "Export and import").

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const COLON = 0x3a
const BRACE = 0x7b
const BRACKET = 0x5b
const DOT = 0x2e

/** Bytes an object or an array takes at most, with its place in its parent: an empty object takes 64. */
const CONTAINER_BYTES = 128
/** Bytes a value or a property takes at most beyond its text, per comma or colon. */
const ITEM_BYTES = 40
/** Characters a number sent with an exponent may gain when JSON.stringify writes it: 1e20 is written with 21 digits, none with more than 24 characters. */
const EXPONENT_GAIN = 23

/** The most memory a document may take once parsed: an export of 256 MiB, the most an import takes, takes about 1.5 GiB by `weigh`. */
export const PARSED_MEMORY_MAX = 1.75 * 1024 ** 3

/**
 * The longest JSON a document may be written back as, and the most UTF-8 bytes of JSON the stores write one
 * record as (a snapshot): V8's longest string is 2^29 - 24 characters, and Node makes no longer string of
 * bytes (a journal line read back, a text node-postgres receives), with a few more around the record.
 */
export const WRITTEN_MAX = 500 * 1024 ** 2

/** A record whose JSON is longer than WRITTEN_MAX bytes: the store that finds it writes and changes nothing. */
export class TooLongToWrite extends Error {
  constructor(readonly bytes: number) {
    super(`a record of ${bytes} bytes of JSON, more than the ${WRITTEN_MAX} a store writes one as`)
  }
}

/** Throws TooLongToWrite for a record's JSON of `bytes`, past WRITTEN_MAX. */
export function refuseWritten(bytes: number): void {
  if (bytes > WRITTEN_MAX) throw new TooLongToWrite(bytes)
}

/**
 * Throws TooLongToWrite for a JSON text longer than WRITTEN_MAX bytes. A UTF-16 unit takes at most 3 bytes in
 * UTF-8, so a text of up to a third of that is not counted: every record but a snapshot.
 */
export function refuseTooLong(json: string): void {
  if (json.length > WRITTEN_MAX / 3) refuseWritten(Buffer.byteLength(json))
}

/**
 * Node's code for bytes past its longest string (a Buffer's `toString`): a snapshot an earlier version saved
 * so; PostgreSQL's reader refuses such a text with it too, before node-postgres would meet it.
 */
export const STRING_TOO_LONG = 'ERR_STRING_TOO_LONG'

/** What `text` would become once parsed: about the most memory it takes, in bytes, and the most characters its JSON takes written again. */
export interface Weight {
  memory: number
  written: number
}

/**
 * What `text` would become once parsed. Its memory, a ceiling: from its
 * objects and arrays, its commas and colons (one each per value beyond the
 * first of a list, and per property), outside strings, and its length; an
 * export takes a sixth of it. Its JSON written again: its length, and what
 * each number sent with an exponent may gain; only such a number is ever
 * written longer than it was sent.
 *
 * @example
 * weigh('[{},{}]') // 2 objects, 1 array, 1 comma, 7 characters: {memory: 431, written: 7}
 */
export function weigh(text: string): Weight {
  let containers = 0
  let items = 0
  let exponents = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code === QUOTE) i = stringEnd(text, i)
    else if (code === BRACE || code === BRACKET) containers++
    else if (code === COMMA || code === COLON) items++
    else if ((code | 0x20) === 0x65 && inNumber(text.charCodeAt(i - 1))) exponents++
  }
  return {
    memory: containers * CONTAINER_BYTES + items * ITEM_BYTES + text.length,
    written: text.length + exponents * EXPONENT_GAIN,
  }
}

/** Whether `code` is a digit or a point: an e after one is an exponent (after u or s, the end of true or false). */
const inNumber = (code: number): boolean => (code >= 0x30 && code <= 0x39) || code === DOT

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
 * Why `text` is not parsed, when it would take more than PARSED_MEMORY_MAX,
 * or be written back longer than WRITTEN_MAX; undefined when it may be.
 *
 * @example
 * tooLargeToParse('[{},{}]') // undefined
 */
export function tooLargeToParse(text: string): string | undefined {
  // a character weighs at most an array's bytes and its own, and counts at most 13 characters written back:
  // a text this short is never too large, nor scanned
  if (text.length * (CONTAINER_BYTES + 1) <= PARSED_MEMORY_MAX) return undefined
  const {memory, written} = weigh(text)
  const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(2)} GiB`
  if (memory > PARSED_MEMORY_MAX)
    return `it would take up to ${gib(memory)} of memory once read, more than the ${gib(PARSED_MEMORY_MAX)} a document may take (many small values take many times their size)`
  if (written > WRITTEN_MAX)
    return `its numbers sent with an exponent (1e20) would be written back with all their digits, up to ${written} characters, more than the ${WRITTEN_MAX} a document may be written as`
  return undefined
}
