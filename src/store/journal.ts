import {type FileHandle, open, readdir, rm, stat, truncate} from 'node:fs/promises'
import {writeSync} from 'node:fs'
import {join} from 'node:path'
import {crc32} from 'node:zlib'
import type {Damage} from './damage.js'
import {decodeChanges, encodeChanges, type JournalChange} from './journal-changes.js'
import {recordJson} from './json-text.js'
import type {Span} from './journal-spans.js'
import {type PushLine, readDeliveriesLine, readPushLine} from './journal-pushes.js'
import {readLines} from './lines.js'
import {JSON_BYTE} from './bytes.js'

/** One committed change: its sequence number and the records it puts (or deletes, with `null`). */
export interface Entry {
  seq: number
  changes: JournalChange[]
}

/** How `Journal.open` hands over what it reads: entries after `afterSeq` (what the documents hold) are expected. */
export interface Replay {
  afterSeq: number
  damage: Damage
  onEntry: (entry: Entry, file: string, line: number) => void
  /**
   * When given, a push's line goes here unparsed instead of to `onEntry`,
   * and an attempt's line goes to `onEntry` with its deliveries unparsed
   * (unread.ts), as the store's tables take them (journal-pushes.ts).
   */
  onPush?: (push: PushLine, file: string, line: number) => void
}

const SEGMENT = /^journal\.(\d+)\.ndjson$/

/** Journal bytes after which appends go on in a new segment. */
const SEGMENT_MAX = 64 * 1024 * 1024

const segmentName = (firstSeq: number) => `journal.${String(firstSeq).padStart(12, '0')}.ndjson`

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

type Waiter = {resolve: () => void; reject: (error: unknown) => void}

/** A line to write, its length in bytes, and the spans of the records it splices: they learn their file and offset once it is written. */
interface PendingLine {
  line: string
  bytes: number
  spans: Span[]
}

/** Each line ends with the CRC-32 of what comes before it: `{"seq":N,"changes":[…],"crc":C}`. */
const CRC = ',"crc":'
const CRC_BYTES = Buffer.from(CRC)
const DIGITS = /^\d{1,10}$/

/** Learns where each record a line splices lies in the changes' JSON (bytes), and how many bytes that JSON has. */
interface Splices {
  found(collection: string, record: object, offset: number, length: number): void
  bytes: number
}

/**
 * The JSON of a line's changes, as `JSON.stringify(changes)` writes it. A put
 * of a record with `data` (an event) splices in the text of its resource,
 * which the push's answer then reuses (store/json-text.ts); `splices`, when
 * given, learns where each such record lies (journal-spans.ts).
 */
function changesJson(changes: readonly unknown[], splices?: Splices): string {
  let text = '['
  // bytes so far, counted only for `splices`: the text may hold characters of more than one byte
  let bytes = 1
  for (const change of changes) {
    if (text.length > 1) {
      text += ','
      bytes++
    }
    const [collection, id, record] = change as [string, string, object]
    if ((change as unknown[]).length !== 3 || typeof (record as {data?: unknown} | null)?.data !== 'object') {
      const json = JSON.stringify(change)
      text += json
      if (splices) bytes += Buffer.byteLength(json)
      continue
    }
    const head = `[${JSON.stringify(collection)},${JSON.stringify(id)},`
    const json = recordJson(record)
    text += `${head}${json}]`
    if (splices) {
      bytes += Buffer.byteLength(head)
      const length = Buffer.byteLength(json)
      splices.found(collection, record, bytes, length)
      bytes += length + 1
    }
  }
  if (splices) splices.bytes = bytes + 1
  return `${text}]`
}

/** A line read: its entry, or, when asked for, a push's line left unparsed (journal-pushes.ts). */
type ReadLine = {seq: number; checksummed: boolean} & ({entry: Entry; push?: never} | {push: PushLine; entry?: never})

/**
 * A journal line's bytes read, or what is wrong with them. Lines without a
 * checksum, written before lines had one, are taken as they are, but only
 * before the first line that has one (docs/storage.md). `pushes`: a push's
 * line, or an attempt's, once its checksum holds, is left unparsed.
 */
function parseLine(bytes: Buffer, legacyAllowed: boolean, pushes: boolean): ReadLine | string {
  // the checksum's field is ASCII: found and read in the bytes
  const at = bytes.lastIndexOf(CRC_BYTES)
  const digits = at === -1 ? '' : bytes.toString('latin1', at + CRC.length, bytes.length - 1)
  const checksummed = bytes[bytes.length - 1] === JSON_BYTE.closeBrace && DIGITS.test(digits)
  if (checksummed && crc32(bytes.subarray(0, at)) !== Number(digits)) {
    return 'its checksum does not match (the line was changed or garbled)'
  }
  if (!checksummed && !legacyAllowed) return 'it has no checksum, while lines before it have one'
  if (checksummed && pushes) {
    const push = readPushLine(bytes, at)
    if (push) return {seq: push.seq, push, checksummed}
    // an attempt's line: its deliveries go to the table as they are, unparsed
    const attempt = readDeliveriesLine(bytes, at)
    if (attempt) {
      const changes = attempt.deliveries.map((d): JournalChange => ['deliveries', d.id, d])
      return {seq: attempt.seq, entry: {seq: attempt.seq, changes}, checksummed}
    }
  }
  let parsed: {seq?: unknown; changes?: unknown} | null
  try {
    parsed = JSON.parse(bytes.toString()) as typeof parsed
  } catch (error) {
    return (error as Error).message
  }
  const changes = decodeChanges(parsed?.changes)
  if (!Number.isInteger(parsed?.seq) || !changes) return 'it is not a journal entry'
  return {seq: parsed!.seq as number, entry: {seq: parsed!.seq as number, changes}, checksummed}
}

/**
 * The append-only log that makes each change durable. Appends made in the
 * same turn of the event loop, or while a write is in flight, are written
 * together by the next write (group commit), so a burst of requests costs one
 * write, not one each. The log is cut into segments so that compaction can
 * drop what the documents already hold.
 */
export class Journal {
  #handle: FileHandle | undefined
  /** Lines waiting to be written, and segment cuts (a number: the next segment's first seq), in order. */
  #queue: (string | PendingLine | number)[] = []
  #waiting: Waiter[] = []
  #writing: Promise<void> | undefined
  #inFlight: Promise<void> | undefined
  #bytes = 0
  #segmentBytes = 0
  /** The segment appends go to, and its size in bytes: where the next line starts. */
  #path: string | undefined
  #position = 0
  #failure: Error | undefined

  private constructor(
    readonly dir: string,
    readonly fsync: boolean,
    readonly segmentMax: number,
  ) {}

  /**
   * Reads every segment a line at a time and hands each entry to
   * `onEntry`. Only a torn last line (a crash mid-write: no newline, at the
   * very end of the journal) is dropped, from disk too, so that the next
   * append starts on a fresh line; any other damage goes to `damage`. Call
   * `cut` before appending.
   */
  static async open(
    dir: string,
    fsync: boolean,
    {afterSeq, damage, onEntry, onPush}: Replay,
    segmentMax = SEGMENT_MAX,
  ): Promise<{journal: Journal; replayed: number}> {
    const journal = new Journal(dir, fsync, segmentMax)
    const names = await journal.#segments()
    const sizes = await Promise.all(names.map(async (name) => (await stat(join(dir, name))).size))
    const torn: {path: string; offset: number}[] = []
    let last: number | undefined
    let checksummed = false
    let dropped = false
    let replayed = 0
    for (const [i, name] of names.entries()) {
      const path = join(dir, name)
      let lines = 0
      const tail = await readLines(path, (bytes, number) => {
        lines = number
        const parsed = parseLine(bytes, !checksummed, onPush !== undefined)
        if (typeof parsed === 'string') {
          damage.found(path, `is corrupt: ${parsed}`, number, bytes.toString())
          // under --repair: the gap this leaves is not news
          dropped = true
          return
        }
        const {seq} = parsed
        checksummed ||= parsed.checksummed
        if (!dropped && (last === undefined ? seq > afterSeq + 1 : seq !== last + 1)) {
          const expected = (last ?? afterSeq) + 1
          const problem = `is corrupt: it has seq ${seq} where ${expected} was expected`
          damage.found(path, `${problem} (a line is missing or moved)`, number)
        }
        last = seq
        dropped = false
        replayed++
        if (parsed.push) onPush!(parsed.push, path, number)
        else onEntry(parsed.entry, path, number)
      })
      if (!tail) continue
      if (sizes.slice(i + 1).some((size) => size > 0)) {
        damage.found(path, 'is corrupt: it is cut short, but later segments follow', lines + 1, tail.text)
      }
      torn.push({path, offset: tail.offset})
    }
    for (const {path, offset} of torn) await truncate(path, offset)
    return {journal, replayed}
  }

  /**
   * The error of a write that failed (a full disk, an I/O error). The
   * journal writes nothing after it: what it holds ends with the last change
   * acknowledged, and possibly part of the batch that failed, which the next
   * start cuts off or replays.
   */
  get failure(): Error | undefined {
    return this.#failure
  }

  /** Bytes appended since the last cut: the compaction trigger. */
  get bytes(): number {
    return this.#bytes
  }

  /**
   * Resolves once the entry is on disk, together with whatever else was
   * waiting. `located`, when given, is handed a span for each record whose
   * JSON the line splices (an event), which learns its file and offset once
   * the line is written (journal-spans.ts).
   */
  append(entry: Entry, located?: (collection: string, record: object, span: Span) => void): Promise<void> {
    const head = `{"seq":${entry.seq},"changes":`
    const spans: Span[] = []
    const splices: Splices | undefined = located && {
      found(collection, record, offset, length) {
        // the head is ASCII: as many bytes as characters
        const span = {offset: head.length + offset, length}
        spans.push(span)
        located(collection, record, span)
      },
      bytes: 0,
    }
    const body = `${head}${changesJson(encodeChanges(entry.changes), splices)}`
    const line = `${body}${CRC}${crc32(body)}}\n`
    this.#bytes += line.length
    this.#segmentBytes += line.length
    // what follows the changes is ASCII too
    const placed = spans.length > 0 && {line, spans, bytes: head.length + splices!.bytes + line.length - body.length}
    const written = this.#enqueue(placed || line)
    // a full segment is closed even between compactions, so no one file grows without bound
    if (this.#segmentBytes > this.segmentMax) {
      this.#segmentBytes = 0
      // its failure is the failure of the appends around it
      this.#enqueue(entry.seq + 1).catch(() => {})
    }
    return written
  }

  /** Entries appended from now on go to a new segment starting at `firstSeq`. */
  cut(firstSeq: number): Promise<void> {
    this.#bytes = 0
    this.#segmentBytes = 0
    return this.#enqueue(firstSeq)
  }

  #enqueue(item: string | PendingLine | number): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure)
    this.#queue.push(item)
    const done = new Promise<void>((resolve, reject) => this.#waiting.push({resolve, reject}))
    // the writer starts after this turn's I/O callbacks: every request that arrived together commits in one write
    this.#writing ??= nextTurn().then(() => this.#drain())
    return done
  }

  /**
   * Resolves when everything appended so far is on disk. Under steady load
   * the writer never idles, so this waits for the batches that exist now,
   * not for the queue to empty.
   */
  settled(): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure)
    if (this.#queue.length > 0) return new Promise((resolve, reject) => this.#waiting.push({resolve, reject}))
    return this.#inFlight ?? Promise.resolve()
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const queue = this.#queue
      const waiting = this.#waiting
      this.#queue = []
      this.#waiting = []
      if (this.#failure) {
        for (const w of waiting) w.reject(this.#failure)
        continue
      }
      const batch = this.#writeBatch(queue)
      // its waiters and `settled` callers see a failure; this only keeps it from counting as unhandled
      batch.catch(() => {})
      this.#inFlight = batch
      try {
        await batch
        for (const w of waiting) w.resolve()
      } catch (error) {
        // writing on after a failed write could leave a torn line in the middle of the log, and the next start refuses that
        this.#failure = error as Error
        console.error(journalFailure(this.dir, error as NodeJS.ErrnoException))
        for (const w of waiting) w.reject(error)
      }
    }
    this.#inFlight = undefined
    this.#writing = undefined
  }

  /** Writes the lines in order, switching segment at each cut; the spans of a line learn where it went once it is written. */
  async #writeBatch(queue: (string | PendingLine | number)[]): Promise<void> {
    // a line's bytes are counted only when a line with spans follows it in the same write
    let lastPlaced = -1
    for (const [i, item] of queue.entries()) if (typeof item === 'object') lastPlaced = i
    let lines = ''
    let bytes = 0
    // whether `bytes` counts all of `lines`: the write then need not count them again
    let counted = true
    let placed: Span[] = []
    const write = async () => {
      const written = await this.#write(lines, counted ? bytes : undefined)
      for (const span of placed) {
        span.file = this.#path
        span.offset += this.#position
      }
      this.#position += written
      lines = ''
      bytes = 0
      counted = true
      placed = []
    }
    for (const [i, item] of queue.entries()) {
      if (typeof item === 'number') {
        await write()
        await this.#switchTo(item)
      } else if (typeof item === 'string') {
        lines += item
        if (i < lastPlaced) bytes += Buffer.byteLength(item)
        else counted = false
      } else {
        for (const span of item.spans) span.offset += bytes
        placed.push(...item.spans)
        lines += item.line
        bytes += item.bytes
      }
    }
    await write()
  }

  /** Writes `lines` (`length` bytes, when counted already) at the end of the segment; resolves with the bytes written. */
  async #write(lines: string, length = Buffer.byteLength(lines)): Promise<number> {
    if (lines === '') return 0
    if (this.fsync) {
      const {bytesWritten} = await this.#handle!.write(lines)
      await this.#handle!.datasync()
      return bytesWritten
    }
    // Without fsync the write only copies into the page cache, and doing it on the
    // event loop costs less than a thread-pool round trip per batch. With fsync the
    // wait is the disk's, so it stays off the loop. The string goes to the file as it
    // is (Node encodes it outside the JS heap); a short write, which a regular file
    // rarely makes, goes on from the bytes.
    const fd = this.#handle!.fd
    const written = writeSync(fd, lines)
    if (written === length) return length
    const bytes = Buffer.from(lines)
    for (let done = written; done < bytes.length;) done += writeSync(fd, bytes, done)
    return bytes.length
  }

  async #switchTo(firstSeq: number): Promise<void> {
    await this.#handle?.close()
    this.#path = join(this.dir, segmentName(firstSeq))
    this.#handle = await open(this.#path, 'a', 0o600)
    // a segment the start cut to may hold lines already: appends go after them
    this.#position = (await this.#handle.stat()).size
  }

  /**
   * Deletes the segments before the one that starts at `firstSeq`: call it
   * once that cut is written and the documents hold what came before.
   * Segments cut since (a full one) are kept.
   */
  async dropSegmentsBefore(firstSeq: number): Promise<void> {
    for (const name of await this.#segments()) {
      if (Number(SEGMENT.exec(name)![1]) < firstSeq) await rm(join(this.dir, name), {force: true})
    }
  }

  async close(): Promise<void> {
    while (this.#writing) await this.#writing
    await this.#handle?.close()
    this.#handle = undefined
  }

  async #segments(): Promise<string[]> {
    return (await readdir(this.dir)).filter((name) => SEGMENT.test(name)).sort()
  }
}

/**
 * The seq the journal of `dir` begins at, as its first segment's name
 * gives it (a segment may be empty); undefined when it has none.
 *
 * @example
 * await journalStart('/srv/tablepay') // 1043: journal.000000001043.ndjson is the first segment
 */
export async function journalStart(dir: string): Promise<number | undefined> {
  const [first] = (await readdir(dir)).filter((name) => SEGMENT.test(name)).sort()
  return first === undefined ? undefined : Number(SEGMENT.exec(first)![1])
}

/**
 * The server's line when a journal write fails: what happened and what to do. A failure of the
 * disk (an errno) needs no stack trace; anything else keeps it, for a bug report.
 */
export function journalFailure(dir: string, error: NodeJS.ErrnoException): string {
  const what = error.code ? error.message : (error.stack ?? String(error))
  return (
    `[tablepay] store: writing the journal in ${dir} failed (${what}). Every change answered before is kept; ` +
    'nothing more is written, and every request is answered 503 storage_unavailable. ' +
    'Free space or fix the disk, then restart `tablepay serve`.'
  )
}
