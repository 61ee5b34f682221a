import {open, readFile, rename, rm, stat, writeFile} from 'node:fs/promises'
import {basename, dirname, join} from 'node:path'
import {crc32} from 'node:zlib'
import {type Adapter, Low} from 'lowdb'
import type {Damage} from './damage.js'
import {readLines} from './lines.js'
import {Unread} from './unread.js'
import {JSON_BYTE} from './bytes.js'

/**
 * How a document's records are kept as read: `parsed`; `{unread: fields}`,
 * records written as the store writes events and deliveries stay unparsed,
 * knowing `fields` (unread.ts); `bytes`,
 * every record's JSON as its bytes, for the caller to parse (a start defers
 * the checks it may not need, replayed-checks.ts). Only for bytes the caller
 * can vouch for once read: a damaged document is read again, parsed.
 */
export type Keep = 'parsed' | 'bytes' | {unread: readonly string[]}

/** The readable JSON document of one collection, and the journal seq it includes. */
export interface Document<T> {
  seq: number
  records: T[]
}

/**
 * How a document was found: `legacy` ones (written before documents carried
 * a count and a checksum, or laid out by hand) are rewritten at start.
 */
export type DocumentState = 'missing' | 'legacy' | 'current'

/** What a document holds, by its trailer's measures: a chunked collection's manifest lists them (docs/storage.md). */
export interface Written {
  count: number
  crc: number
  bytes: number
}

/** Records serialized between two turns of the event loop when a document is written. */
const SLICE = 500

/** A document laid out otherwise than one record a line is read whole, which only works below V8's string limit. */
const WHOLE_READ_MAX = 64 * 1024 * 1024

const INDENT = '    '
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

/** The end of the records in a legacy document, and the legacy empty document's records line. */
const LEGACY_END = /^ {2}\]$/
const LEGACY_EMPTY = /^ {2}"records": \[\]$/

const isRecord = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * Reads a document one line at a time: one record a line between a header
 * and a trailer that gives their count and checksum. Whatever does not fit
 * is damage (reported to `damage`), unless the file is a small JSON document
 * laid out some other way.
 */
class DocumentReader {
  readonly records: unknown[] = []
  readonly fields: Partial<Record<Field, number>> = {}
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
    this.records.length = 0
    for (const record of doc!.records!) this.records.push(record)
    this.state = 'legacy'
    return true
  }
}

/**
 * A lowdb adapter for one collection's document: one record per line, so
 * the file stays readable and diffable, and is read a line at a time, so no
 * size makes it unreadable (docs/storage.md). Like lowdb's JSONFile the
 * write is atomic (temp file + rename); unlike it, the JSON is made and
 * written a slice of records at a time, so rewriting a large collection
 * never stalls the server's requests for long. Private (0600): the data dir
 * holds API keys.
 */
class RecordsFile implements Adapter<Document<unknown>> {
  /** Size of the file as last read or written, for the compaction trigger. */
  bytes = 0
  state: DocumentState = 'missing'
  /** The number of records and their CRC-32, as last read (computed, not the trailer's) or written. */
  count = 0
  crc = 0

  constructor(
    readonly path: string,
    readonly fsync: boolean,
    readonly damage: Damage | undefined,
    readonly keep: Keep = 'parsed',
  ) {}

  async read(): Promise<Document<unknown> | null> {
    const reader = new DocumentReader(this.path, this.keep)
    let lines = 0
    try {
      const tail = await readLines(this.path, (bytes, number) => reader.line(bytes, (lines = number)))
      if (tail) reader.line(Buffer.from(tail.text), ++lines)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
      throw error
    }
    if (this.damage) await reader.end(lines, this.damage)
    this.state = reader.state
    this.bytes = (await stat(this.path)).size
    this.count = reader.records.length
    this.crc = reader.crc
    return {seq: reader.fields.seq ?? 0, records: reader.records}
  }

  /**
   * Writes the document; `bytesOf` may give a record's JSON as bytes already
   * made (its span in the journal, journal-spans.ts), which go to the file
   * as they are instead of serializing the record again.
   */
  async write({seq, records}: Document<unknown>, bytesOf?: (record: unknown) => Buffer | undefined): Promise<void> {
    const temp = join(dirname(this.path), `.${basename(this.path)}.tmp`)
    let bytes = 0
    let crc = 0
    try {
      const handle = await open(temp, 'w', 0o600)
      const write = async (text: string) => {
        bytes += (await handle.write(text)).bytesWritten
      }
      // text, then bytes given, in order: one write for the slice
      const writeParts = async (parts: (string | Buffer)[]) => {
        const buffers = parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : part))
        bytes += (await handle.writev(buffers)).bytesWritten
      }
      try {
        await write(`{\n  "seq": ${seq},\n  "records": [\n`)
        for (let i = 0; i < records.length; i += SLICE) {
          // each record's JSON once: the checksum goes on line by line (the CRC of the lines joined),
          // instead of joining the slice a second time for it
          const parts: (string | Buffer)[] = []
          let text = i === 0 ? INDENT : `,\n${INDENT}`
          for (let j = i; j < Math.min(i + SLICE, records.length); j++) {
            if (j > i) text += `,\n${INDENT}`
            const record = records[j]
            // a record still as read (unread.ts) is its own JSON
            const given = record instanceof Unread ? record.bytes : bytesOf?.(record)
            if (given) {
              crc = crc32(given, crc)
              parts.push(text, given)
              text = ''
              continue
            }
            const line = JSON.stringify(record)
            crc = crc32(line, crc)
            text += line
          }
          if (parts.length === 0) {
            await write(text)
          } else {
            parts.push(text)
            await writeParts(parts)
          }
        }
        await write(`${records.length === 0 ? '' : '\n'}  ],\n  "count": ${records.length},\n  "crc": ${crc}\n}\n`)
        if (this.fsync) await handle.sync()
      } finally {
        await handle.close()
      }
      await rename(temp, this.path)
    } catch (error) {
      // a failed rewrite leaves the old document in place, and nothing else behind
      await rm(temp, {force: true})
      throw error
    }
    this.bytes = bytes
    this.state = 'current'
    this.count = records.length
    this.crc = crc
  }
}

/** One lowdb database per collection, `<dir>/<name>.json`. */
export class Documents {
  readonly #dbs = new Map<string, Low<Document<unknown>>>()
  readonly #files = new Map<string, RecordsFile>()

  constructor(
    readonly dir: string,
    readonly fsync: boolean,
  ) {}

  /** Bytes of all documents on disk: compaction waits for a journal this large, so its cost per change stays flat. */
  get bytes(): number {
    let total = 0
    for (const file of this.#files.values()) total += file.bytes
    return total
  }

  /** Reads a document, its records kept as `keep` says; what is wrong with it goes to `damage`. */
  async read<T>(name: string, damage?: Damage, keep?: Keep): Promise<Document<T> & {state: DocumentState}> {
    const file = new RecordsFile(join(this.dir, `${name}.json`), this.fsync, damage, keep)
    const db = new Low<Document<unknown>>(file, {seq: 0, records: []})
    await db.read()
    this.#dbs.set(name, db)
    this.#files.set(name, file)
    const read = {...(db.data as Document<T>), state: file.state}
    // the records as bytes are the caller's: kept here too, they would hold the buffers they were read into
    if (keep === 'bytes') db.data = {...db.data!, records: []}
    return read
  }

  /**
   * Creates a missing document, empty and in the earlier layout: until the
   * compaction that follows rewrites it, it proves nothing, so a start
   * killed before every document exists is not taken for damage.
   */
  async create(name: string): Promise<void> {
    await writeFile(join(this.dir, `${name}.json`), '{\n  "seq": 0,\n  "records": []\n}\n', {mode: 0o600, flag: 'wx'})
  }

  async write(name: string, doc: Document<unknown>): Promise<void> {
    const db = this.#dbs.get(name)!
    db.data = doc
    await db.write()
  }

  /**
   * Reads a chunk of a chunked collection, `<dir>/<file>`, without keeping
   * it among the collections' documents; `null` when there is no such file.
   * Its records are kept as `keep` says.
   */
  async readChunk<T>(
    file: string,
    damage: Damage,
    keep?: Keep,
  ): Promise<(Document<T | Unread> & Written & {state: DocumentState; path: string}) | null> {
    const adapter = new RecordsFile(join(this.dir, file), this.fsync, damage, keep)
    const doc = await adapter.read()
    if (!doc) return null
    const {count, crc, bytes, state, path} = adapter
    return {...(doc as Document<T | Unread>), count, crc, bytes, state, path}
  }

  /**
   * Writes a chunk (temp file + rename, like a document), with the records'
   * JSON `bytesOf` gives as it is; resolves with what its manifest entry records.
   */
  async writeChunk(
    file: string,
    doc: Document<unknown>,
    bytesOf?: (record: unknown) => Buffer | undefined,
  ): Promise<Written> {
    const adapter = new RecordsFile(join(this.dir, file), this.fsync, undefined)
    await adapter.write(doc, bytesOf)
    return {count: adapter.count, crc: adapter.crc, bytes: adapter.bytes}
  }

  /** With --fsync, the renames must reach the disk too before the journal is dropped. */
  async syncDir(): Promise<void> {
    if (!this.fsync) return
    const handle = await open(this.dir, 'r')
    try {
      await handle.sync()
    } finally {
      await handle.close()
    }
  }
}
