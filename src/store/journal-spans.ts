import {closeSync, openSync, readSync} from 'node:fs'
import {JSON_BYTE} from './bytes.js'

/**
 * Where a record's JSON lies in the journal. A push's event is serialized
 * once, into its journal line; the compaction that writes the event into
 * its chunk copies those bytes instead of serializing it again
 * (docs/storage.md, "Chunks"). Until its line is written a span knows only
 * its length and where it starts in its line; the journal sets `file` and
 * the offset in the file once the line is on disk.
 */
export interface Span {
  /** The segment that holds it, once its line is written. */
  file?: string
  /** Byte offset of the record's JSON: in its line until written, then in its file. */
  offset: number
  length: number
}

/** Bytes read at once: a compaction copies spans in about the order the journal wrote them. */
const WINDOW = 1024 * 1024

/** Whether `bytes` begin as the JSON of `record` does when its first field is its id (an event's is). */
function startsWithId(bytes: Buffer, record: unknown): boolean {
  const id = (record as {id?: unknown}).id
  if (typeof id !== 'string') return false
  const start = `{"id":${JSON.stringify(id)},`
  return bytes.length > start.length && bytes.toString('utf8', 0, Buffer.byteLength(start)) === start
}

/**
 * The journal's bytes of the records a compaction writes, for the records
 * `spans` knows. Synchronous, a window at a time, from files the page cache
 * holds: the document writer asks for one record after another. At the
 * event bound, where a compaction writes about 50,000 new events, copying
 * their bytes took compaction from 10–16 µs of each push's main thread to
 * 4–5 µs (docs/benchmarks.md, "Compaction's share").
 */
export class SpanReader {
  readonly #fds = new Map<string, number>()
  #file: string | undefined
  #start = 0
  #buffer: Buffer = Buffer.alloc(0)
  #window: Buffer = Buffer.alloc(0)

  constructor(readonly spans: WeakMap<object, Span>) {}

  /**
   * The JSON of `record` as its journal line holds it, or undefined when the
   * journal holds none for it (a record read at start, a line never
   * written, a segment gone): the caller serializes it then. The bytes are
   * the reader's window, good until the next call: the caller copies them.
   */
  bytesOf(record: unknown): Buffer | undefined {
    const span = this.spans.get(record as object)
    if (span?.file === undefined || !this.#holds(span, span.file)) return undefined
    const at = span.offset - this.#start
    const bytes = this.#window.subarray(at, at + span.length)
    // the record's JSON begins with its id and ends its object: anything else means the span is wrong, and serializing is safe
    if (bytes[bytes.length - 1] !== JSON_BYTE.closeBrace || !startsWithId(bytes, record)) return undefined
    return bytes
  }

  /** Whether the window holds `span`, reading a new one from its start when it does not. */
  #holds(span: Span, file: string): boolean {
    const end = span.offset + span.length
    if (file === this.#file && span.offset >= this.#start && end <= this.#start + this.#window.length) return true
    try {
      let fd = this.#fds.get(file)
      if (fd === undefined) this.#fds.set(file, (fd = openSync(file, 'r')))
      // one buffer for every window, unless a span is larger: a compaction reads tens of MB through it
      const size = Math.max(WINDOW, span.length)
      if (this.#buffer.length < size) this.#buffer = Buffer.allocUnsafe(size)
      const buffer = this.#buffer
      const read = readSync(fd, buffer, 0, buffer.length, span.offset)
      this.#file = file
      this.#start = span.offset
      this.#window = buffer.subarray(0, read)
      return read >= span.length
    } catch {
      return false
    }
  }

  close(): void {
    for (const fd of this.#fds.values()) closeSync(fd)
    this.#fds.clear()
  }
}
