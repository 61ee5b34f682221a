import {type FileHandle, open, readdir, readFile, rm, truncate} from 'node:fs/promises'
import {writeSync} from 'node:fs'
import {join} from 'node:path'

/** One committed change: its sequence number and the records it puts (or deletes, with `null`). */
export interface Entry {
  seq: number
  changes: [collection: string, id: string, record: unknown][]
}

const SEGMENT = /^journal\.(\d+)\.ndjson$/

const segmentName = (firstSeq: number) => `journal.${String(firstSeq).padStart(12, '0')}.ndjson`

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

type Waiter = {resolve: () => void; reject: (error: unknown) => void}

/**
 * The append-only log that makes each change durable. Appends made in the
 * same turn of the event loop, or while a write is in flight, are written
 * together by the next write (group commit), so a burst of requests costs one
 * write, not one each. The log is cut into segments so that compaction can
 * drop what the documents already hold.
 */
export class Journal {
  #handle: FileHandle | undefined
  #segmentSeq = 0
  /** Lines waiting to be written, and segment cuts (a number: the next segment's first seq), in order. */
  #queue: (string | number)[] = []
  #waiting: Waiter[] = []
  #writing: Promise<void> | undefined
  #inFlight: Promise<void> | undefined
  #bytes = 0
  #failure: Error | undefined

  private constructor(
    readonly dir: string,
    readonly fsync: boolean,
  ) {}

  /** Reads every entry of every segment in order; a torn last line (a crash mid-write) is dropped, from disk too. */
  static async open(dir: string, fsync: boolean): Promise<{journal: Journal; entries: Entry[]}> {
    const journal = new Journal(dir, fsync)
    const entries: Entry[] = []
    for (const name of await journal.#segments()) {
      const text = await readFile(join(dir, name), 'utf8')
      // cut a torn tail off the file too: the next append to this segment must start on a fresh line
      const end = text.lastIndexOf('\n') + 1
      if (end < text.length) await truncate(join(dir, name), Buffer.byteLength(text.slice(0, end)))
      const lines = text.slice(0, end).split('\n')
      lines.forEach((line, i) => {
        if (line === '') return
        try {
          entries.push(JSON.parse(line) as Entry)
        } catch (error) {
          const isLast = lines.slice(i + 1).every((l) => l === '')
          if (!isLast) throw new Error(`store: ${name} line ${i + 1} is corrupt: ${(error as Error).message}`)
        }
      })
    }
    journal.cut((entries.at(-1)?.seq ?? 0) + 1)
    return {journal, entries}
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

  /** Resolves once the entry is on disk, together with whatever else was waiting. */
  append(entry: Entry): Promise<void> {
    const line = JSON.stringify(entry) + '\n'
    this.#bytes += line.length
    return this.#enqueue(line)
  }

  /** Entries appended from now on go to a new segment starting at `firstSeq`. */
  cut(firstSeq: number): Promise<void> {
    this.#bytes = 0
    return this.#enqueue(firstSeq)
  }

  #enqueue(item: string | number): Promise<void> {
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
        console.error('[tablepay] store: writing the journal failed; nothing more is written or answered until a restart.', error)
        for (const w of waiting) w.reject(error)
      }
    }
    this.#inFlight = undefined
    this.#writing = undefined
  }

  /** Writes the lines in order, switching segment at each cut. */
  async #writeBatch(queue: (string | number)[]): Promise<void> {
    let lines = ''
    for (const item of queue) {
      if (typeof item === 'string') {
        lines += item
        continue
      }
      await this.#write(lines)
      lines = ''
      await this.#switchTo(item)
    }
    await this.#write(lines)
  }

  async #write(lines: string): Promise<void> {
    if (lines === '') return
    if (this.fsync) {
      await this.#handle!.write(lines)
      await this.#handle!.datasync()
      return
    }
    // Without fsync the write only copies into the page cache, and doing it on the
    // event loop costs less than a thread-pool round trip per batch. With fsync the
    // wait is the disk's, so it stays off the loop.
    const bytes = Buffer.from(lines)
    for (let done = 0; done < bytes.length; ) done += writeSync(this.#handle!.fd, bytes, done)
  }

  async #switchTo(firstSeq: number): Promise<void> {
    await this.#handle?.close()
    this.#handle = await open(join(this.dir, segmentName(firstSeq)), 'a', 0o600)
    this.#segmentSeq = firstSeq
  }

  /** Deletes the segments before the current one; call it once the cut is written and the documents hold what came before. */
  async dropOlderSegments(): Promise<void> {
    for (const name of await this.#segments()) {
      if (Number(SEGMENT.exec(name)![1]) < this.#segmentSeq) await rm(join(this.dir, name), {force: true})
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
