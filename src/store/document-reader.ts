import {readFile, stat} from 'node:fs/promises'
import {crc32} from 'node:zlib'
import type {Damage} from './damage.js'
import type {Document, DocumentState, Keep} from './documents.js'
import {Unread} from './unread.js'
import {JSON_BYTE} from './bytes.js'

/** A document laid out otherwise than one record a line is read whole, which only works below V8's string limit. */
const WHOLE_READ_MAX = 64 * 1024 * 1024

/** What a record's line begins with: the writer puts it there, and the reader finds the record's bytes after it. */
export const INDENT = '    '
const INDENT_BYTES = Buffer.from(INDENT)
/** The longest line that may end the records (`  ],`). */
const END_LINE_MAX = 4

type Field = 'seq' | 'count' | 'crc'

/**
 * The lines around the records, in order: how each looks, what a message
 * calls it, and the number it gives; `null` marks where the records go.
 */
const LAYOUT: ([RegExp, string, Field?] | null)[] = [
  [/^\{$/, '"{"'],
  [/^ {2}"seq": (\d+),$/, '"seq": N,', 'seq'],
  [/^ {2}"records": \[$/, '"records": ['],
  null,
  [/^ {2}\],$/, '"],"'],
  [/^ {2}"count": (\d+),$/, '"count": N,', 'count'],
  [/^ {2}"crc": (\d+)$/, '"crc": N', 'crc'],
  [/^\}$/, '"}"'],
]
const RECORDS = LAYOUT.indexOf(null)
const RECORDS_END = RECORDS + 1
const CLOSE = LAYOUT.length - 1

/**
 * The line after the records that names the collection, in documents
 * written since a start checks that each is the collection its name says;
 * a document without it is of an earlier version (docs/storage.md).
 */
const COLLECTION = /^ {2}"collection": "([a-z_]+)",$/

/** The end of the records in a legacy document, and the legacy empty document's records line. */
const LEGACY_END = /^ {2}\]$/
const LEGACY_EMPTY = /^ {2}"records": \[\]$/

const isRecord = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * Reads a document one line at a time: one record a line between a header
 * and a trailer that names the collection (since documents carry it) and
 * gives their count and checksum. Whatever does not fit is damage (reported
 * to `damage`), unless the file is a small JSON document laid out some
 * other way.
 *
 * @example
 * const reader = new DocumentReader(path)
 * const tail = await readLines(path, (bytes, number) => reader.line(bytes, number))
 * await reader.end(lines, damage) // then reader.records, reader.fields.seq, reader.collection
 */
export class DocumentReader {
  readonly records: unknown[] = []
  readonly fields: Partial<Record<Field, number>> = {}
  /** The collection the document names, if it names one. */
  collection: string | undefined
  state: DocumentState = 'current'
  /** The index in LAYOUT of the line expected next. */
  #at = 0
  #broken = false
  #crc = 0
  #problems: {line: number; problem: string; text: string}[] = []

  constructor(
    readonly path: string,
    readonly keep: Keep = 'parsed',
  ) {}

  /** The CRC-32 of the records read, one after the other as on their lines. */
  get crc(): number {
    return this.#crc
  }

  /** One line's bytes, as read: a record's checksum goes over them, and only what must be is decoded. */
  line(bytes: Buffer, number: number): void {
    if (this.#broken) return
    const expected = LAYOUT[this.#at]
    if (expected === null) return this.#record(bytes, number)
    const text = bytes.toString()
    if (this.#at === RECORDS_END + 1 && this.collection === undefined) {
      const named = COLLECTION.exec(text)
      if (named) {
        this.collection = named[1]
        return
      }
    }
    if (this.#at === RECORDS - 1 && LEGACY_EMPTY.test(text)) {
      this.state = 'legacy'
      this.#at = CLOSE
      return
    }
    const match = expected?.[0].exec(text)
    if (!match) {
      const problem = `is corrupt: expected ${expected ? expected[1] : 'the end of the file'}`
      this.#problems.push({line: number, problem, text})
      this.#broken = true
      return
    }
    if (expected![2]) this.fields[expected![2]] = Number(match[1])
    this.#at++
  }

  #record(bytes: Buffer, number: number): void {
    // the lines that end the records are short: only such a line is decoded to be matched
    if (bytes.length <= END_LINE_MAX) {
      const text = bytes.toString()
      if (LEGACY_END.test(text)) {
        this.state = 'legacy'
        this.#at = CLOSE
        return
      }
      if (LAYOUT[RECORDS_END]![0].test(text)) {
        this.#at = RECORDS_END + 1
        return
      }
    }
    // the indent and the comma are one byte a character: the record's bytes lie between them
    const indented =
      bytes.length >= INDENT.length && bytes.compare(INDENT_BYTES, 0, INDENT.length, 0, INDENT.length) === 0
    const comma = indented && bytes[bytes.length - 1] === JSON_BYTE.comma ? 1 : 0
    const json = bytes.subarray(indented ? INDENT.length : 0, bytes.length - comma)
    try {
      const {keep} = this
      const record: unknown =
        keep === 'bytes'
          ? json
          : (typeof keep === 'object' && Unread.of(json, keep.unread)) || JSON.parse(json.toString())
      if (record !== json && !(record instanceof Unread) && !isRecord(record)) throw new Error('not a record')
      this.records.push(record)
      this.#crc = crc32(json, this.#crc)
    } catch (error) {
      this.#problems.push({line: number, problem: `is corrupt: ${(error as Error).message}`, text: bytes.toString()})
    }
  }

  /** Reports what is wrong, or reads the file whole if it is a small document in another layout. */
  async end(lines: number, damage: Damage): Promise<void> {
    if (this.#at < LAYOUT.length || this.#problems.length > 0) {
      if (await this.#readWhole()) return
      if (lines === 0) return damage.found(this.path, 'is empty')
      for (const {line, problem, text} of this.#problems) damage.found(this.path, problem, line, text)
      if (!this.#broken && this.#at < LAYOUT.length) {
        damage.found(this.path, `is cut short: it ends at line ${lines}, before its closing lines`)
      }
      this.state = 'legacy'
      return
    }
    if (this.state === 'legacy') return
    const {count, crc} = this.fields
    if (count !== this.records.length) {
      damage.found(this.path, `is corrupt: it holds ${this.records.length} records, not the ${count} it says`)
    } else if (crc !== this.#crc) {
      damage.found(this.path, 'is corrupt: its records do not match its checksum (one was edited)')
    }
  }

  async #readWhole(): Promise<boolean> {
    if ((await stat(this.path)).size > WHOLE_READ_MAX) return false
    let doc: Partial<Document<unknown>> | null
    try {
      doc = JSON.parse(await readFile(this.path, 'utf8')) as Partial<Document<unknown>> | null
    } catch {
      return false
    }
    if (!isRecord(doc) || !Number.isInteger(doc!.seq) || !Array.isArray(doc!.records)) return false
    if (!doc!.records.every(isRecord)) return false
    this.fields.seq = doc!.seq!
    const {collection} = doc as {collection?: unknown}
    if (typeof collection === 'string') this.collection = collection
    this.records.length = 0
    for (const record of doc!.records!) this.records.push(record)
    this.state = 'legacy'
    return true
  }
}
