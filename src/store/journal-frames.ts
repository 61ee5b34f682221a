import {crc32} from 'node:zlib'
import {refuseWritten} from '../domain/json-memory.js'

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

/** Where a put's record lies in a line: its first byte and its length; and its JSON. */
export interface Placed {
  collection: string
  record: object
  offset: number
  length: number
  json: string
}

const SPACE = 0x20
const COLON = 0x3a
const DIGITS = /^\d{1,15}$/

/** Room before a line for its CRC and the space after it: at most 10 digits. */
const CRC_ROOM = 11

/** A line to write, its length in bytes, and where each put's record lies in it. */
export interface LineOut {
  line: Buffer
  bytes: number
  placed: Placed[]
}

/** A frame's head, what comes before its body of `bodyBytes` bytes. */
function frameHead({kind, collection, id}: FrameText, bodyBytes: number): string {
  const idJson = JSON.stringify(id)
  return ` ${kind} ${collection} ${Buffer.byteLength(idJson)}:${idJson} ${bodyBytes}:`
}

/** The length in bytes of a frame's body, refused past what a store writes before anything is written or applied (store.ts, `commit`). */
function bodyBytes(body: string): number {
  const bytes = Buffer.byteLength(body)
  refuseWritten(bytes)
  return bytes
}

/**
 * The line for `frames` at `seq`, its length in bytes, and where each put's
 * record lies in it (a compaction copies an event's bytes from there,
 * journal-spans.ts). Its parts are written into one buffer, each once: as
 * a string, V8 copied them into one for the CRC and again for the write,
 * which took two thirds of a large restore's time, and a push's line left
 * about 3 KB more garbage (docs/storage.md, "Files").
 *
 * @example
 * writeLine(7, [{kind: 'del', collection: 'checks', id: 'chk_1', body: ''}]).line.toString()
 * // '597000249 7 del checks 7:"chk_1" 0:\n'
 */
export function writeLine(seq: number, frames: readonly FrameText[]): LineOut {
  const lengths: number[] = []
  const heads: string[] = []
  let size = CRC_ROOM + String(seq).length + 1
  for (const frame of frames) {
    const length = bodyBytes(frame.body)
    const head = frameHead(frame, length)
    lengths.push(length)
    heads.push(head)
    size += Buffer.byteLength(head) + length
  }
  const buffer = Buffer.allocUnsafe(size)
  let at = CRC_ROOM + buffer.write(String(seq), CRC_ROOM, 'latin1')
  const placed: Placed[] = []
  frames.forEach(({collection, body, record}, i) => {
    at += buffer.write(heads[i]!, at)
    if (record) placed.push({collection, record, offset: at, length: lengths[i]!, json: body})
    at += buffer.write(body, at)
  })
  const crc = `${crc32(buffer.subarray(CRC_ROOM, at))} `
  const start = CRC_ROOM - crc.length
  buffer.write(crc, start, 'latin1')
  buffer.write('\n', at, 'latin1')
  for (const place of placed) place.offset -= start
  return {line: buffer.subarray(start, at + 1), bytes: at + 1 - start, placed}
}

/** A line that is not one the journal writes. */
class NotAnEntry extends Error {}

const KIND_BYTES = KINDS.map((kind) => Buffer.from(kind))
let lastCollection = ''
const QUOTE = 0x22
const BACKSLASH = 0x5c
const DIGIT_0 = 0x30

/**
 * Reads the frame fields of a line, left to right, from the bytes: a start
 * reads every entry of up to 32 MiB of journal, about three a push. On a
 * killed data dir of 30,000 pushes to an endpoint and their attempts
 * (53 MB of journal), the store's open took about 960 ms of CPU with each
 * field decoded to a string and matched by a regular expression, and about
 * 820 ms read from the bytes, a collection's name made once for the
 * entries that repeat it.
 */
class Cursor {
  at = 0
  constructor(readonly bytes: Buffer) {}

  /** The kind the next field names, and the space after it. */
  kind(): Kind {
    const stop = this.bytes.indexOf(SPACE, this.at)
    const found = KIND_BYTES.findIndex(
      (kind) => kind.length === stop - this.at && kind.equals(this.bytes.subarray(this.at, stop)),
    )
    if (found === -1) throw new NotAnEntry()
    this.at = stop + 1
    return KINDS[found]!
  }

  /** The collection up to the next space, which it steps over: most entries name the one before them again. */
  collection(): string {
    const stop = this.bytes.indexOf(SPACE, this.at)
    if (stop === -1) throw new NotAnEntry()
    let same = stop - this.at === lastCollection.length
    for (let i = 0; same && i < lastCollection.length; i++)
      same = this.bytes[this.at + i] === lastCollection.charCodeAt(i)
    if (!same) lastCollection = this.bytes.toString('latin1', this.at, stop)
    this.at = stop + 1
    return lastCollection
  }

  /** A length, then the bytes it counts. */
  counted(): Buffer {
    let length = 0
    const start = this.at
    for (; this.bytes[this.at] !== COLON; this.at++) {
      const digit = this.bytes[this.at]! - DIGIT_0
      if (!(digit >= 0 && digit <= 9) || this.at - start > 15) throw new NotAnEntry()
      length = length * 10 + digit
    }
    const from = this.at + 1
    if (from === start + 1 || from + length > this.bytes.length) throw new NotAnEntry()
    this.at = from + length
    return this.bytes.subarray(from, this.at)
  }

  /** A counted JSON string: its content as it is when it escapes nothing, else parsed. */
  id(): unknown {
    const json = this.counted()
    const last = json.length - 1
    if (last < 1 || json[0] !== QUOTE || json[last] !== QUOTE || json.includes(BACKSLASH))
      return JSON.parse(json.toString())
    return json.toString('utf8', 1, last)
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
      const kind = cursor.kind()
      const collection = cursor.collection()
      const id = cursor.id()
      if (typeof id !== 'string' || bytes[cursor.at++] !== SPACE) throw new NotAnEntry()
      frames.push({kind, collection, id, body: cursor.counted()})
    }
    return {seq: Number(seq), frames}
  } catch {
    // a frame's field or length that is not as written, or an id that is not a JSON string
    return 'it is not a journal entry'
  }
}
