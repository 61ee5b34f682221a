import {crc32} from 'node:zlib'

/**
 * A journal line, framed: each entry gives its kind and the length of its
 * id and of its body before them, so a reader finds every record's bytes
 * by counting, never by scanning JSON (docs/storage.md, "Files"):
 *
 *     CRC SEQ[ KIND COLLECTION ID_BYTES:ID BODY_BYTES:BODY]…\n
 *
 * `CRC` is the CRC-32 of what follows its space, `ID` the id as a JSON
 * string (so no id can hold a newline), `BODY` JSON: the record of a `put`,
 * nothing for a `del`, `[template, varying, rows]` for a `run`
 * (journal-runs.ts), `[source, fields]` for a `copy` (journal-copies.ts).
 */

/** The kinds of entry, each replayed by its own method (replayer.ts). */
export const KINDS = ['put', 'del', 'run', 'copy'] as const
export type Kind = (typeof KINDS)[number]

/** One entry of a line, as read: its body's bytes lie in the line's buffer. */
export interface Frame {
  kind: Kind
  collection: string
  id: string
  body: Buffer
}

/** One entry to write: its body as JSON text, and for a put the record it is the JSON of. */
export interface FrameText {
  kind: Kind
  collection: string
  id: string
  body: string
  record?: object
}

/** Where a put's record lies in a line: its first byte and its length. */
export interface Placed {
  collection: string
  record: object
  offset: number
  length: number
}

const SPACE = 0x20
const COLON = 0x3a
const DIGITS = /^\d{1,15}$/

/**
 * The line for `frames` at `seq`, its length in bytes, and where each put's
 * record lies in it (a compaction copies an event's bytes from there,
 * journal-spans.ts).
 *
 * @example
 * writeLine(7, [{kind: 'del', collection: 'checks', id: 'chk_1', body: ''}]).line
 * // '597000249 7 del checks 7:"chk_1" 0:\n'
 */
export function writeLine(seq: number, frames: readonly FrameText[]): {line: string; bytes: number; placed: Placed[]} {
  let text = String(seq)
  let bytes = text.length
  const placed: Placed[] = []
  for (const {kind, collection, id, body, record} of frames) {
    const idJson = JSON.stringify(id)
    const bodyBytes = Buffer.byteLength(body)
    const head = ` ${kind} ${collection} ${Buffer.byteLength(idJson)}:${idJson} ${bodyBytes}:`
    bytes += Buffer.byteLength(head)
    if (record) placed.push({collection, record, offset: bytes, length: bodyBytes})
    text += `${head}${body}`
    bytes += bodyBytes
  }
  // the checksum and the newline are ASCII: as many bytes as characters
  const crc = `${crc32(text)} `
  for (const place of placed) place.offset += crc.length
  return {line: `${crc}${text}\n`, bytes: crc.length + bytes + 1, placed}
}

/** A line that is not one the journal writes. */
class NotAnEntry extends Error {}

/** Reads the ASCII frame fields of a line, left to right. */
class Cursor {
  at = 0
  constructor(readonly bytes: Buffer) {}

  /** The text up to the next `end` byte, which it steps over. */
  until(end: number): string {
    const stop = this.bytes.indexOf(end, this.at)
    if (stop === -1) throw new NotAnEntry()
    const text = this.bytes.toString('latin1', this.at, stop)
    this.at = stop + 1
    return text
  }

  /** A length, then the bytes it counts. */
  counted(): Buffer {
    const length = this.until(COLON)
    if (!DIGITS.test(length)) throw new NotAnEntry()
    const end = this.at + Number(length)
    if (end > this.bytes.length) throw new NotAnEntry()
    const bytes = this.bytes.subarray(this.at, end)
    this.at = end
    return bytes
  }
}

/**
 * A line's seq and frames, or what is wrong with it: its checksum is checked
 * before anything else is read.
 *
 * @example
 * readLine(Buffer.from('597000249 7 del checks 7:"chk_1" 0:')) // {seq: 7, frames: [{kind: 'del', …}]}
 */
export function readLine(bytes: Buffer): {seq: number; frames: Frame[]} | string {
  const space = bytes.indexOf(SPACE)
  const crc = space === -1 ? '' : bytes.toString('latin1', 0, space)
  if (!DIGITS.test(crc)) return 'it is not a journal entry'
  if (crc32(bytes.subarray(space + 1)) !== Number(crc)) {
    return 'its checksum does not match (the line was changed or garbled)'
  }
  const cursor = new Cursor(bytes)
  const seqEnd = bytes.indexOf(SPACE, space + 1)
  const seq = bytes.toString('latin1', space + 1, seqEnd === -1 ? bytes.length : seqEnd)
  if (!DIGITS.test(seq)) return 'it is not a journal entry'
  cursor.at = seqEnd === -1 ? bytes.length : seqEnd
  try {
    const frames: Frame[] = []
    while (cursor.at < bytes.length) {
      if (bytes[cursor.at++] !== SPACE) throw new NotAnEntry()
      const kind = cursor.until(SPACE) as Kind
      const collection = cursor.until(SPACE)
      const id: unknown = JSON.parse(cursor.counted().toString())
      if (!KINDS.includes(kind) || typeof id !== 'string' || bytes[cursor.at++] !== SPACE) throw new NotAnEntry()
      frames.push({kind, collection, id, body: cursor.counted()})
    }
    return {seq: Number(seq), frames}
  } catch {
    // a frame's field or length that is not as written, or an id that is not a JSON string
    return 'it is not a journal entry'
  }
}
