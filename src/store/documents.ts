import {open, rename, rm, stat, writeFile} from 'node:fs/promises'
import {basename, dirname, join} from 'node:path'
import {Damage} from './damage.js'
import {readLines} from './lines.js'
import {Unread} from './unread.js'
import {DocumentReader, INDENT} from './document-reader.js'
import {FileOut} from './file-out.js'
import {syncDir} from './sync-dir.js'

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
 * a count and a checksum, or laid out by hand) are rewritten at start;
 * `foreign` ones name another collection than their file's (a document
 * swapped for another), and --repair reads them as missing.
 */
export type DocumentState = 'missing' | 'legacy' | 'current' | 'foreign'

/** What a document on disk holds, as read or last written: the documents' index lists it (document-index.ts). */
export interface Measured {
  name: string
  path: string
  seq: number
  count: number
  crc: number
  state: DocumentState
  /** Whether the start found damage in it (under --repair): then it is not compared with the index. */
  damaged: boolean
}

/** What a document holds, by its trailer's measures: a chunked collection's manifest lists them (docs/storage.md). */
export interface Written {
  count: number
  crc: number
  bytes: number
}

/**
 * Records serialized between two turns of the event loop when a document is written: 100 rather than 500
 * made changing pushes to 10,000 checks 5–12 % faster (docs/benchmarks.md, "Compaction's share").
 */
const SLICE = 100
/** What goes between two records. */
const BETWEEN = `,\n${INDENT}`
/** A slice's bytes are written once they pass this many, however few records it holds. */
const PART_BYTES = 16 * 1024 * 1024

/** Where a document is written before it is renamed over `path`: a start removes what a crash left (store.ts). */
const tempOf = (path: string): string => join(dirname(path), `.${basename(path)}.tmp`)

/**
 * One collection's document: one record per line, so
 * the file stays readable and diffable, and is read a line at a time, so no
 * size makes it unreadable (docs/storage.md). The
 * write is atomic (temp file + rename); unlike it, the JSON is made and
 * written a slice of records at a time, so rewriting a large collection
 * never stalls the server's requests for long. Private (0600): the data dir
 * holds API keys.
 */
class RecordsFile {
  /** Size of the file as last read or written, for the compaction trigger. */
  bytes = 0
  state: DocumentState = 'missing'
  /** The seq, the number of records and their CRC-32, as last read (computed, not the trailer's) or written. */
  seq = 0
  count = 0
  crc = 0
  /** Whether reading it found damage (under --repair). */
  damaged = false

  /** `collection`: the name the document gives when written, and must give, if it gives one, when read. */
  constructor(
    readonly path: string,
    readonly fsync: boolean,
    readonly damage: Damage | undefined,
    readonly keep: Keep = 'parsed',
    readonly collection?: string,
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
    const found = this.damage?.dropped.length ?? 0
    if (this.damage) await reader.end(lines, this.damage)
    this.bytes = (await stat(this.path)).size
    if (this.damage && this.collection && reader.collection && reader.collection !== this.collection) {
      const problem = `holds the ${reader.collection} collection, not ${this.collection} (it was swapped for another document)`
      this.damage.found(this.path, problem)
      // --repair: its records are another collection's, so it is read as a document that is not there
      this.state = 'foreign'
      this.damaged = true
      return null
    }
    this.state = reader.state
    this.damaged = (this.damage?.dropped.length ?? 0) > found
    this.seq = reader.fields.seq ?? 0
    this.count = reader.records.length
    this.crc = reader.crc
    return {seq: this.seq, records: reader.records}
  }

  /**
   * Writes the document; `bytesOf` may give a record's JSON as bytes already
   * made (its span in the journal, journal-spans.ts), which go to the file
   * as they are instead of serializing the record again.
   */
  async write({seq, records}: Document<unknown>, bytesOf?: (record: unknown) => Buffer | undefined): Promise<void> {
    const temp = tempOf(this.path)
    let bytes = 0
    let crc = 0
    try {
      const handle = await open(temp, 'w', 0o600)
      try {
        const out = new FileOut(handle)
        out.add(`{\n  "seq": ${seq},\n  "records": [\n`)
        for (let i = 0; i < records.length; i += SLICE) {
          for (let j = i; j < Math.min(i + SLICE, records.length); j++) {
            out.add(j > 0 ? BETWEEN : INDENT)
            const record = records[j]
            // a record still as read (unread.ts) is its own JSON; the checksum is the CRC of the records' JSON joined
            out.add((record instanceof Unread ? record.bytes : bytesOf?.(record)) ?? JSON.stringify(record), true)
            // a slice of large records (snapshots) is written as it goes, letting requests in between
            if (out.pending > PART_BYTES) await out.flush()
          }
          await out.flush()
        }
        const named = this.collection ? `  "collection": "${this.collection}",\n` : ''
        out.add(
          `${records.length === 0 ? '' : '\n'}  ],\n${named}  "count": ${records.length},\n  "crc": ${out.crc}\n}\n`,
        )
        await out.flush()
        bytes = out.bytes
        crc = out.crc
        if (this.fsync) await handle.sync()
      } finally {
        await handle.close()
      }
      await rename(temp, this.path)
    } catch (error) {
      // a failed rewrite leaves the old document in place, and nothing else behind if it can; its own error says why
      await rm(temp, {force: true}).catch(() => undefined)
      throw error
    }
    this.bytes = bytes
    this.state = 'current'
    this.damaged = false
    this.seq = seq
    this.count = records.length
    this.crc = crc
  }
}

/** One document per collection, `<dir>/<name>.json`. */
export class Documents {
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

  /**
   * Reads a document, its records kept as `keep` says (unread only where its bytes are vouched for:
   * `readVouched`); what is wrong with it goes to `damage`.
   */
  async read<T>(name: string, damage?: Damage, keep?: Keep): Promise<Document<T> & {state: DocumentState}> {
    const once = async (found: Damage | undefined, as: Keep | undefined) => {
      const file = new RecordsFile(join(this.dir, `${name}.json`), this.fsync, found, as, name)
      const read = ((await file.read()) ?? {seq: 0, records: []}) as Document<T>
      this.#files.set(name, file)
      // the records are the caller's: nothing here keeps them (as bytes, they would hold the buffers they were read into)
      return {...read, state: file.state}
    }
    if (!damage || typeof keep !== 'object') return once(damage, keep)
    return (await readVouched(damage, keep.unread, once))!
  }

  /**
   * Creates a missing document, empty and in the earlier layout: until the
   * compaction that follows rewrites it, it proves nothing, so a start
   * killed before every document exists is not taken for damage. Written
   * aside and then renamed, as every write is: a disk that fills meanwhile
   * leaves the document missing, not an empty file that the next start
   * would take for a damaged document.
   */
  async create(name: string): Promise<void> {
    const path = join(this.dir, `${name}.json`)
    const temp = tempOf(path)
    try {
      await writeFile(temp, '{\n  "seq": 0,\n  "records": []\n}\n', {mode: 0o600})
      await rename(temp, path)
    } finally {
      await rm(temp, {force: true}).catch(() => undefined)
    }
  }

  async write(name: string, doc: Document<unknown>): Promise<void> {
    await this.#files.get(name)!.write(doc)
  }

  /** What each document read or written holds: the documents' index lists it (document-index.ts). */
  measured(): Measured[] {
    return [...this.#files].map(([name, file]) => {
      const {path, seq, count, crc, state, damaged} = file
      return {name, path, seq, count, crc, state, damaged}
    })
  }

  /**
   * Reads a document kept apart from the collections' own, `<dir>/<file>`: a
   * chunk of a chunked collection, or the documents' index; `null` when
   * there is no such file. Its records are kept as `keep` says; a document
   * that names another collection than `collection` is damage, and read
   * empty (`foreign`).
   */
  async readApart<T>(
    file: string,
    damage: Damage,
    keep?: Keep,
    collection?: string,
  ): Promise<(Document<T | Unread> & Written & {state: DocumentState; path: string}) | null> {
    const adapter = new RecordsFile(join(this.dir, file), this.fsync, damage, keep, collection)
    const doc = await adapter.read()
    if (!doc && adapter.state !== 'foreign') return null
    const {count, crc, bytes, state, path} = adapter
    return {...((doc ?? {seq: 0, records: []}) as Document<T | Unread>), count, crc, bytes, state, path}
  }

  /**
   * Writes a document kept apart (temp file + rename, like a collection's),
   * naming `collection` if given, with the records' JSON `bytesOf` gives as
   * it is; resolves with what a chunk's manifest entry records.
   */
  async writeApart(
    file: string,
    doc: Document<unknown>,
    bytesOf?: (record: unknown) => Buffer | undefined,
    collection?: string,
  ): Promise<Written> {
    const adapter = new RecordsFile(join(this.dir, file), this.fsync, undefined, 'parsed', collection)
    await adapter.write(doc, bytesOf)
    return {count: adapter.count, crc: adapter.crc, bytes: adapter.bytes}
  }

  /** With --fsync, the renames must reach the disk too before the journal is dropped. */
  async syncDir(): Promise<void> {
    if (this.fsync) await syncDir(this.dir)
  }
}

/**
 * Reads a document with its records unread (unread.ts), knowing `fields`, only where its bytes are vouched
 * for: laid out as the store writes, nothing in it wrong, and whatever `vouches` says besides (a chunk's count
 * and checksum as its manifest lists them); else reads it again, parsed, what is wrong going to `damage`
 * (docs/storage.md, "Read on demand"). A line that does not parse could otherwise stay unread, and fail
 * whatever reads it later.
 */
export async function readVouched<D extends {state: DocumentState}>(
  damage: Damage,
  fields: readonly string[],
  read: (damage: Damage, keep: Keep) => Promise<D | null>,
  vouches: (doc: D) => boolean = () => true,
): Promise<D | null> {
  const found = new Damage(damage.dir, true)
  const doc = await read(found, {unread: fields})
  if (!doc || (doc.state === 'current' && found.dropped.length === 0 && vouches(doc))) return doc
  return read(damage, 'parsed')
}
