import {type FileHandle, open, readdir, rm, stat, truncate} from 'node:fs/promises'
import {fstatSync, statSync, writeSync, writevSync} from 'node:fs'
import {join} from 'node:path'
import type {Damage} from './damage.js'
import {encodeChanges, type JournalChange} from './journal-changes.js'
import {type Frame, readLine, writeLine} from './journal-frames.js'
import {readLegacyLine} from './journal-legacy.js'
import type {Span} from './journal-spans.js'
import {readLines} from './lines.js'
import {syncDir} from './sync-dir.js'
import {goOn, keptAfter, Removed} from '../shared/disk-failure.js'

/** One committed change: its sequence number and the records it puts (or deletes, with `null`). */
export interface Entry {
  seq: number
  changes: JournalChange[]
}

/** How `Journal.open` hands over what it reads: lines after `afterSeq` (what the documents hold) are expected. */
export interface Replay {
  afterSeq: number
  damage: Damage
  onLine: (seq: number, frames: Frame[], file: string, line: number) => void
}

const SEGMENT = /^journal\.(\d+)\.ndjson$/

/** Journal bytes after which appends go on in a new segment. */
const SEGMENT_MAX = 64 * 1024 * 1024

const segmentName = (firstSeq: number) => `journal.${String(firstSeq).padStart(12, '0')}.ndjson`

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

type Waiter = {resolve: () => void; reject: (error: unknown) => void}

/** A line to write, its length in bytes, and the spans of the records it puts: they learn their file and offset once it is written. */
interface PendingLine {
  line: Buffer
  bytes: number
  spans: Span[]
}

/** A line of an earlier version begins its JSON object; a framed one, its checksum's digits (journal-frames.ts). */
const LEGACY_START = 0x7b

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
  #queue: (PendingLine | number)[] = []
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
    /** The dir as it was opened: one removed and made again at its path (`rm -rf`, `mkdir`) is another. */
    readonly opened: {dev: number; ino: number},
  ) {}

  /**
   * Reads every segment a line at a time and hands each line's frames to
   * `onLine`; `legacy` says whether a line was of an earlier version (the
   * start then migrates the data dir). Only a torn last line (a crash mid-write: no newline, at the
   * very end of the journal) is dropped, from disk too, so that the next
   * append starts on a fresh line; any other damage goes to `damage`. Call
   * `cut` before appending.
   */
  static async open(
    dir: string,
    fsync: boolean,
    {afterSeq, damage, onLine}: Replay,
    segmentMax = SEGMENT_MAX,
  ): Promise<{journal: Journal; replayed: number; legacy: boolean}> {
    const journal = new Journal(dir, fsync, segmentMax, await stat(dir))
    const names = await journal.#segments()
    const sizes = await Promise.all(names.map(async (name) => (await stat(join(dir, name))).size))
    const torn: {path: string; offset: number}[] = []
    let last: number | undefined
    let checksummed = false
    let legacy = false
    let dropped = false
    let replayed = 0
    for (const [i, name] of names.entries()) {
      const path = join(dir, name)
      let lines = 0
      const tail = await readLines(path, (bytes, number) => {
        lines = number
        const isLegacy = bytes[0] === LEGACY_START
        legacy ||= isLegacy
        const parsed = isLegacy ? readLegacyLine(bytes, !checksummed) : readLine(bytes)
        if (typeof parsed === 'string') {
          damage.found(path, `is corrupt: ${parsed}`, number, bytes.toString())
          // under --repair: the gap this leaves is not news
          dropped = true
          return
        }
        const {seq} = parsed
        // every framed line has a checksum; an earlier one may not (journal-legacy.ts)
        checksummed ||= 'checksummed' in parsed ? (parsed.checksummed as boolean) : true
        if (!dropped && (last === undefined ? seq > afterSeq + 1 : seq !== last + 1)) {
          const expected = (last ?? afterSeq) + 1
          const problem = `is corrupt: it has seq ${seq} where ${expected} was expected`
          damage.found(path, `${problem} (a line is missing or moved)`, number)
        }
        last = seq
        dropped = false
        replayed++
        onLine(seq, parsed.frames, path, number)
      })
      if (!tail) continue
      if (sizes.slice(i + 1).some((size) => size > 0)) {
        damage.found(path, 'is corrupt: it is cut short, but later segments follow', lines + 1, tail.text)
      }
      torn.push({path, offset: tail.offset})
    }
    for (const {path, offset} of torn) await truncate(path, offset)
    return {journal, replayed, legacy}
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
   * waiting. `located`, when given, is handed a span for each record the
   * line puts whole, which learns its file and offset once the line is
   * written (journal-spans.ts), and the record's JSON.
   */
  append(
    entry: Entry,
    located?: (collection: string, record: object, span: Span, json: string) => void,
  ): Promise<void> {
    const {line, bytes, placed} = writeLine(entry.seq, encodeChanges(entry.changes))
    const spans: Span[] = []
    for (const {collection, record, offset, length, json} of placed) {
      const span = {offset, length}
      spans.push(span)
      located?.(collection, record, span, json)
    }
    this.#bytes += line.length
    this.#segmentBytes += line.length
    const written = this.#enqueue({line, bytes, spans})
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

  #enqueue(item: PendingLine | number): Promise<void> {
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
      } catch (caught) {
        // writing on after a failed write could leave a torn line in the middle of the log, and the next start refuses that
        const gone = (caught as NodeJS.ErrnoException | undefined)?.code === 'ENOENT' && this.#dirGone()
        const error = gone ? new Removed(this.dir, true) : (caught as Error)
        this.#failure = error
        console.error(journalFailure(this.dir, error))
        for (const w of waiting) w.reject(error)
      }
    }
    this.#inFlight = undefined
    this.#writing = undefined
  }

  /** Writes the lines in order, switching segment at each cut; the spans of a line learn where it went once it is written. */
  async #writeBatch(queue: (PendingLine | number)[]): Promise<void> {
    let lines: Buffer[] = []
    let bytes = 0
    let placed: Span[] = []
    const write = async () => {
      const written = await this.#write(lines, bytes)
      for (const span of placed) {
        span.file = this.#path
        span.offset += this.#position
      }
      this.#position += written
      lines = []
      bytes = 0
      placed = []
    }
    for (const item of queue) {
      if (typeof item === 'number') {
        await write()
        await this.#switchTo(item)
        continue
      }
      // one by one: a line of a large restore holds more spans than a call takes arguments
      for (const span of item.spans) {
        span.offset += bytes
        placed.push(span)
      }
      lines.push(item.line)
      bytes += item.bytes
    }
    await write()
  }

  /** Writes `lines` (`length` bytes) at the end of the segment; resolves with the bytes written. */
  async #write(lines: Buffer[], length: number): Promise<number> {
    if (length === 0) return 0
    // Without fsync the write only copies into the page cache, and doing it on the
    // event loop costs less than a thread-pool round trip per batch. With fsync the
    // wait is the disk's, so it stays off the loop. The lines go in one write, as the
    // buffers they were made in; a short write, which a disk that fills mid-write
    // makes, goes on from the bytes, where the next write throws: lines are never
    // taken as written when they are not.
    const handle = this.#handle!
    let written = this.fsync ? (await handle.writev(lines)).bytesWritten : writevSync(handle.fd, lines)
    if (written < length) {
      const bytes = Buffer.concat(lines, length)
      while (written < length)
        written += this.fsync ? (await handle.write(bytes, written)).bytesWritten : writeSync(handle.fd, bytes, written)
    }
    if (this.fsync) await handle.datasync()
    // a segment removed while tablepay runs (`rm -rf` of the data dir) takes writes that no start will read:
    // one fstat per batch keeps them from being answered as saved (docs/api.md, "Durability"), and `#drain`
    // says whether the dir went with it. Its path is asked too, as a file system that fills in no link count
    // (some FUSE mounts) reads 0 for every file.
    const {nlink, ino} = this.fsync ? await handle.stat() : fstatSync(handle.fd)
    if (nlink === 0 && statSync(this.#path!, {throwIfNoEntry: false})?.ino !== ino)
      throw new Removed(this.#path!, false)
    return length
  }

  /**
   * Whether the dir is gone, or another now stands at its path: what the journal writes would go nowhere a
   * start reads. Its inode is not another's while it runs: the journal holds a file of it open.
   */
  #dirGone(): boolean {
    const now = statSync(this.dir, {throwIfNoEntry: false})
    return now?.ino !== this.opened.ino || now.dev !== this.opened.dev
  }

  /** Throws `Removed` when the dir is gone or another stands at its path. */
  checkDir(): void {
    if (this.#dirGone()) throw new Removed(this.dir, true)
  }

  /** `change`, run once the dir is found still the one opened: no file goes into another made at its path. */
  async intoDir<T>(change: () => Promise<T>): Promise<T> {
    this.checkDir()
    return change()
  }

  async #switchTo(firstSeq: number): Promise<void> {
    // a new segment in a dir made again at the path would start a data dir that lacks the documents
    this.checkDir()
    await this.#handle?.close()
    this.#path = join(this.dir, segmentName(firstSeq))
    this.#handle = await open(this.#path, 'a', 0o600)
    // with --fsync, a line is acknowledged once on the disk: the segment's name must be there before it
    if (this.fsync) await syncDir(this.dir)
    // a segment the start cut to may hold lines already: appends go after them
    this.#position = (await this.#handle.stat()).size
  }

  /**
   * Deletes the segments before the one that starts at `firstSeq`: call it
   * once that cut is written and the documents hold what came before.
   * Segments cut since (a full one) are kept.
   */
  dropSegmentsBefore(firstSeq: number): Promise<void> {
    return this.#dropSegments((first) => first < firstSeq)
  }

  /**
   * Deletes the segments that start at `firstSeq` or later: at a repaired start, past the last line it
   * replayed, they hold only lines it dropped, which the segment it cuts to would otherwise keep before its own.
   */
  dropSegmentsFrom(firstSeq: number): Promise<void> {
    return this.#dropSegments((first) => first >= firstSeq)
  }

  async #dropSegments(drops: (firstSeq: number) => boolean): Promise<void> {
    for (const name of await this.#segments()) {
      if (drops(Number(SEGMENT.exec(name)![1]))) await rm(join(this.dir, name), {force: true})
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
export function journalFailure(dir: string, error: Error): string {
  const {code, message, stack} = error as NodeJS.ErrnoException
  const what = error instanceof Removed ? 'ENOENT' : code ? message : (stack ?? String(error))
  return (
    `[tablepay] store: writing the journal in ${dir} failed (${what}). ${keptAfter(error)}; ` +
    'nothing more is written, and every request is answered 503 storage_unavailable. ' +
    `To go on: ${goOn(error)}.`
  )
}
