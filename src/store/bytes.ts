/**
 * Reading a record the store wrote from its bytes, without decoding or
 * parsing it: a start looks at every event and delivery this way, for its
 * id, account and the fields its table groups by (unread.ts), and at each
 * check of the checks document for its id (replayed-checks.ts). Byte by
 * byte, which costs less than a Buffer method's call for the few bytes
 * each look takes. A record's bounds are never looked for here: the
 * chunk's lines and the journal's frames give them.
 */

/** The bytes of JSON's punctuation. */
export const JSON_BYTE = {
  quote: 0x22,
  comma: 0x2c,
  backslash: 0x5c,
  openBracket: 0x5b,
  closeBracket: 0x5d,
  openBrace: 0x7b,
  closeBrace: 0x7d,
  digit0: 0x30,
  digit9: 0x39,
} as const

/** Whether `bytes` hold `marker` at `at`. */
export function holds(bytes: Buffer, marker: Buffer, at: number): boolean {
  if (at < 0 || at + marker.length > bytes.length) return false
  for (let i = 0; i < marker.length; i++) if (bytes[at + i] !== marker[i]) return false
  return true
}

const ID_START = Buffer.from('{"id":"')

/** Where the id of a record the store wrote lies: its first field, a plain string, not empty; else undefined. */
export function leadingId(bytes: Buffer): {from: number; to: number} | undefined {
  if (!holds(bytes, ID_START, 0)) return undefined
  const id = plainString(bytes, ID_START.length, 1)
  return id && id.to > id.from ? id : undefined
}

/**
 * Where the content of a JSON string lies, scanning from `start` (its first
 * byte, or going back, its last) to its quote; undefined when it has an
 * escape, or no quote ends it.
 */
export function plainString(bytes: Buffer, start: number, step: 1 | -1): {from: number; to: number} | undefined {
  for (let i = start; i >= 0 && i < bytes.length; i += step) {
    const byte = bytes[i]
    if (byte === JSON_BYTE.backslash) return undefined
    if (byte === JSON_BYTE.quote) return step === 1 ? {from: start, to: i} : {from: i + 1, to: start + 1}
  }
  return undefined
}
