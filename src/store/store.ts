import {readdir, rm} from 'node:fs/promises'
import {join} from 'node:path'
import type {CollectionName, Collections} from '../domain/records.js'
import {Chunks, type ChunkSnapshot, type Placed} from './chunks.js'
import {Damage} from './damage.js'
import {Documents, type DocumentState} from './documents.js'
import {type Entry, Journal, journalStart} from './journal.js'
import {type Span, SpanReader} from './journal-spans.js'
import {lockDataDir} from './lock.js'
import {makeDataDir} from './data-dir.js'
import {diskFailure} from '../shared/disk-failure.js'
import {checkIndex, indexStale, readIndex, writeIndex} from './document-index.js'
import {readChecks, ReplayedChecks} from './replayed-checks.js'
import {Replayer} from './replayer.js'
import {Table} from './table.js'
import {type Tables, tables} from './tables.js'

/**
 * One record put (or deleted, with `null`) by a change. A deletion may name the account whose record it was
 * (`owner`), which its key alone does not tell: an endpoint's, so that its account's live stream says so.
 */
export type Change = {
  [C in CollectionName]: [collection: C, id: string, record: Collections[C] | null, owner?: string]
}[CollectionName]

export interface StoreOptions {
  /** The data dir; without it everything stays in memory (`--memory`). */
  dir?: string
  /** fsync every journal write and compaction, to survive power loss as well as a killed process. */
  fsync?: boolean
  /** Journal bytes after which the documents are rewritten and the journal dropped (at least twice the documents' own size). */
  compactAfterBytes?: number
  /** Bytes after which the journal goes on in a new file (64 MiB). */
  segmentBytes?: number
  /** Start on a damaged data dir with what is intact, saving what is dropped to a side file (docs/storage.md). */
  repair?: boolean
  /** Places per chunk of the events document in a new data dir (10,000; docs/storage.md, "Chunks"). */
  chunkSize?: number
  /** The most journal bytes the chunks alone let grow before a compaction (32 MiB). */
  chunkedJournalBytes?: number
}

/**
 * The collections stored in chunks: their records go oldest first and
 * change while they are new (a delivery until its attempts end) if at all,
 * so most of their chunks stay as they are between two compactions
 * (docs/storage.md, "Chunks"), however many records they hold.
 */
const CHUNKED: readonly CollectionName[] = ['events', 'deliveries']

/** Collections newer than the store's format: a data dir written before one has no document for it, nor an index entry. */
const NEWER: ReadonlySet<CollectionName> = new Set(['fan_outs', 'snapshots'])

/** Journal bytes per document byte that set off a compaction. */
const COMPACT_RATIO = 2

/** The most journal the chunks alone let grow before a compaction (`chunkedJournalBytes`). */
const CHUNKED_JOURNAL_MAX = 32 * 1024 * 1024

/** A change that stores `record` under `id`. */
export const put = <C extends CollectionName>(collection: C, id: string, record: Collections[C]): Change =>
  [collection, id, record] as Change

/** A table's records in the order of their places, those still unread as such: a compaction copies their bytes. */
function stored(table: Placed<unknown>): unknown[] {
  const records: unknown[] = []
  table.forEachPlaced((record) => records.push(record))
  return records
}

/**
 * All state, in memory, made durable by a journal. `commit` applies a change
 * at once (so the next request sees it) and resolves when it is on disk;
 * the documents are rewritten from memory now and then (compaction), and
 * start-up reads them and replays the journal written since.
 */
export class Store {
  readonly tables: Tables = tables()
  #seq = 0
  #dirty = new Set<CollectionName>()
  /** The chunks of each chunked collection on disk, and which changed; only with a data dir. */
  #chunks = new Map<CollectionName, Chunks>()
  #compacting: Promise<void> | undefined
  /** The start replayed a journal that no compaction has written to the documents yet (`compactReplayed`). */
  #replayPending = false
  #compactions = 0
  #journal: Journal | undefined
  #documents: Documents | undefined
  #unlock: (() => Promise<void>) | undefined
  /** Set by `close()` of a data dir's store: a commit after it would be applied in memory only, never written. */
  #closed: Error | undefined
  #listeners: ((changes: Change[]) => void)[] = []
  /**
   * Where the journal holds the JSON of the chunked records put since the
   * last compaction took its records: that compaction copies those bytes
   * into the chunks (docs/storage.md, "Chunks"). Weak, so that a record
   * retention deletes meanwhile is not kept for it.
   */
  #spans = new WeakMap<object, Span>()
  /** The JSON the journal line of the commit under way holds of each record put in a table `keptAsJson`: it keeps those bytes. */
  readonly #json = new Map<object, string>()
  readonly #located = (collection: string, record: object, span: Span, json: string): void => {
    if (this.#chunks.has(collection as CollectionName)) this.#spans.set(record, span)
    else if (this.tables[collection as CollectionName].keptAsJson) this.#json.set(record, json)
  }

  private constructor(readonly options: StoreOptions) {}

  static async open(options: StoreOptions = {}): Promise<Store> {
    const store = new Store(options)
    if (options.dir) await store.#load(options.dir)
    return store
  }

  get persistent(): boolean {
    return this.#journal !== undefined
  }

  /**
   * Set once a journal write has failed. From then on every commit and
   * every `settled` rejects with it, and the memory (which may hold changes
   * that were never written) is never written to the documents: a restart
   * reads back what was acknowledged. Set too once the store is closed: a
   * commit then rejects, as it can no longer be written.
   */
  get failure(): Error | undefined {
    return this.#journal?.failure ?? this.#closed
  }

  async #load(dir: string): Promise<void> {
    await makeDataDir(dir)
    this.#unlock = await lockDataDir(dir)
    try {
      await this.#read(dir)
    } catch (error) {
      await this.#journal?.close()
      await this.#unlock()
      throw error
    }
  }

  /**
   * Reads the documents, then replays the journal written since. Damage
   * refuses the start before anything on disk changes, unless `repair`
   * (docs/storage.md).
   */
  async #read(dir: string): Promise<void> {
    const damage = new Damage(dir, Boolean(this.options.repair))
    this.#documents = new Documents(dir, Boolean(this.options.fsync))
    const docSeq = new Map<string, number>()
    const states = new Map<CollectionName, DocumentState>()
    const chunked = new Map(CHUNKED.map((name) => [name, new Chunks(name, this.#documents!, this.options.chunkSize)]))
    // a push's check is built once, from its last line in the journal, and a check it changes is not parsed (replayed-checks.ts)
    const checks = new ReplayedChecks()
    for (const name of Object.keys(this.tables) as CollectionName[]) {
      const table = this.tables[name] as unknown as Table<never>
      const chunks = chunked.get(name)
      const doc =
        chunks !== undefined
          ? await chunks.read(
              damage,
              (chunk, records) => {
                // a chunk's records get back places in its range, so that each stays in its chunk's file
                if (chunk !== undefined) table.placeAfter(chunk * chunks.size - 1)
                for (const record of records) table.put(record as never)
              },
              table.readOnDemand ? table.unreadFields : undefined,
            )
          : await (
              name === 'checks'
                ? readChecks(this.#documents, damage, checks)
                : this.#documents.read<never>(
                    name,
                    damage,
                    table.readOnDemand ? {unread: table.unreadFields} : undefined,
                  )
            ).then((read) => {
              for (const record of read.records) table.put(record as never)
              return read
            })
      docSeq.set(name, doc.seq)
      states.set(name, doc.state)
      this.#seq = Math.max(this.#seq, doc.seq)
    }
    this.#chunks = chunked
    // each document is the one written last, and the journal follows them (document-index.ts)
    const index = await readIndex(this.#documents, damage)
    // a start creates every missing document before it writes one with a checksum: once one has it, a
    // missing one was lost, but for a collection newer than the data dir, which its index does not list
    if ([...states.values()].includes('current')) {
      for (const [name, state] of states) {
        if (state === 'missing' && !(NEWER.has(name) && !index?.listed.has(name)))
          damage.found(join(dir, `${name}.json`), 'is missing, while the other documents are there')
      }
    }
    if (index) checkIndex(index, this.#documents.measured(), await journalStart(dir), damage)
    const replayer = new Replayer(
      {
        tables: this.tables as never,
        apply: (collection, id, record) => this.#apply([collection, id, record] as Change),
      },
      damage,
      docSeq,
      checks,
    )
    const {journal, replayed, legacy} = await Journal.open(
      dir,
      Boolean(this.options.fsync),
      {
        afterSeq: this.#seq,
        damage,
        onLine: (seq, frames, file, line) => {
          replayer.line(seq, frames, file, line)
          this.#seq = Math.max(this.#seq, seq)
        },
      },
      this.options.segmentBytes,
    )
    replayer.finish()
    this.#journal = journal
    // the temp file of a compaction that was killed; the document it was replacing is whole
    for (const name of await readdir(dir)) if (/^\..+\.json\.tmp$/.test(name)) await rm(join(dir, name), {force: true})
    // chunk files that no manifest names: written by a compaction killed before its manifest, or replaced by one killed after
    for (const chunks of chunked.values()) await chunks.removeOrphans()
    const report = await damage.writeReport()
    // saved in the report: a damaged line left in the segment cut to would refuse the next start again
    if (report) await journal.dropSegmentsFrom(this.#seq + 1)
    await journal.cut(this.#seq + 1)
    if (report) {
      console.error(
        `[tablepay] store: --repair dropped ${damage.dropped.length} damaged part(s) of ${dir}; they are saved in ${report}`,
      )
    }
    // documents missing or in an older layout, and all of them after a repair or over a journal of an earlier
    // version (which they then hold, so that its segments are dropped), are rewritten before the start ends
    let rewrite = false
    for (const [name, state] of states) {
      if (state === 'missing') await this.#documents.create(name)
      if (state === 'current' && !report && !legacy) continue
      rewrite = true
      const chunks = chunked.get(name)
      if (chunks) chunks.rewriteAll()
      else this.#dirty.add(name)
    }
    if (rewrite) return this.compact()
    // a data dir of an earlier version, or a compaction killed before it wrote the index: it lists the documents as read
    if (indexStale(index, this.#documents.measured())) await writeIndex(this.#documents, this.#seq)
    // what the journal changed is written once the server answers (`compactReplayed`)
    this.#replayPending = replayed > 0 || this.#dirty.size > 0 || this.#chunksPending()
  }

  /**
   * Compacts, in the background, what the start replayed from the journal.
   * The server calls it once it answers: begun inside `open`, this
   * compaction took turns with the rest of the start and held back its
   * first answer by a fifth of a second at the event bound. Until it is
   * done the journal keeps what it replayed, so a crash meanwhile replays it
   * again (docs/storage.md, "Chunks"); a clean stop compacts in any case.
   */
  compactReplayed(): void {
    if (!this.#replayPending) return
    this.#replayPending = false
    this.#compactInBackground()
  }

  #chunksPending(): boolean {
    for (const chunks of this.#chunks.values()) if (chunks.pending) return true
    return false
  }

  #compactInBackground(): void {
    void this.compact().catch((error: unknown) => {
      const kept = 'the journal keeps every change until a compaction succeeds'
      const failed = diskFailure('compacting', this.options.dir!, error)
      if (failed) console.error(`[tablepay] ${failed} Nothing is lost: ${kept}.`)
      else console.error(`[tablepay] store: compaction failed; ${kept}`, error)
    })
  }

  #apply([collection, id, record]: Change): void {
    const table = this.tables[collection] as unknown as Table<{account_id: string}>
    const chunks = this.#chunks.get(collection)
    if (chunks) {
      // the record's place says which chunk changed; an event a push's line holds unparsed stays so
      const seq = record === null ? table.delete(id) : table.put(record as {account_id: string})
      if (seq !== undefined) chunks.touch(seq)
      return
    }
    if (record === null) table.delete(id)
    else table.put(record as {account_id: string}, this.#json.get(record))
    this.#dirty.add(collection)
  }

  /**
   * Calls `listener` with every committed change once it is durable: the
   * delivery worker and the live stream learn of new records this way.
   */
  subscribe(listener: (changes: Change[]) => void): () => void {
    this.#listeners.push(listener)
    return () => (this.#listeners = this.#listeners.filter((l) => l !== listener))
  }

  /**
   * Applies the changes in memory now and resolves once they are durable.
   * Commits made while a journal write is in flight share the next one.
   */
  commit(changes: Change[]): Promise<void> {
    if (this.failure) return Promise.reject(this.failure)
    if (changes.length === 0) return this.settled()
    // written into a line first: a change that cannot be (a record whose JSON is past the longest string V8
    // makes) throws before anything is applied or a seq is taken, so memory and journal stay one
    const written = this.#journal?.append({seq: this.#seq + 1, changes} satisfies Entry, this.#located)
    if (written) this.#seq++
    for (const change of changes) this.#apply(change)
    this.#json.clear()
    const notify = () => {
      for (const listener of this.#listeners) {
        try {
          listener(changes)
        } catch (error) {
          console.error('[tablepay] store listener failed', error)
        }
      }
    }
    if (!written) {
      notify()
      return Promise.resolve()
    }
    if (this.#journal!.bytes > this.#compactAt()) this.#compactInBackground()
    return written.then(notify)
  }

  /**
   * Journal bytes that set off a compaction. A compaction rewrites the
   * documents whole, so waiting for a journal twice their size makes each
   * journal byte pay for at most half a byte of rewrite, however much is
   * stored. Chunks are rewritten only where the journal changed them, so they
   * need no such wait past CHUNKED_JOURNAL_MAX: a restart after a kill then
   * replays at most that much journal, not twice all the events
   * (docs/storage.md, "Chunks").
   */
  #compactAt(): number {
    const floor = this.options.compactAfterBytes ?? 16 * 1024 * 1024
    let chunkBytes = 0
    for (const chunks of this.#chunks.values()) chunkBytes += chunks.bytes
    const chunks = Math.min(COMPACT_RATIO * chunkBytes, this.options.chunkedJournalBytes ?? CHUNKED_JOURNAL_MAX)
    return Math.max(floor, COMPACT_RATIO * this.#documents!.bytes, chunks)
  }

  /**
   * Resolves when every change committed so far is durable. A read or a
   * no-op answer waits for it, so nothing is ever answered from state that a
   * crash could still take back.
   */
  settled(): Promise<void> {
    return this.#journal?.settled() ?? Promise.resolve()
  }

  /** Rewrites the documents of the collections that changed, then drops the journal they now hold. */
  /** Compactions started so far: a test reads it around commits to see what set one off. */
  get compactions(): number {
    return this.#compactions
  }

  compact(): Promise<void> {
    if (!this.#compacting) this.#compactions++
    this.#compacting ??= this.#compact().finally(() => (this.#compacting = undefined))
    return this.#compacting
  }

  async #compact(): Promise<void> {
    if (!this.#journal || !this.#documents || this.failure) return
    if (this.#dirty.size === 0 && !this.#chunksPending()) return
    const seq = this.#seq
    // records are never mutated in place, so copying the arrays is a consistent snapshot
    const snapshot = [...this.#dirty].map((name) => ({name, records: stored(this.tables[name])}))
    this.#dirty.clear()
    const taken: {chunks: Chunks; snapshot: ChunkSnapshot}[] = []
    for (const [name, chunks] of this.#chunks)
      if (chunks.pending) taken.push({chunks, snapshot: chunks.take(this.tables[name] as Placed<unknown>)})
    // the records taken were put before the cut: their spans lie in the segments this compaction drops once done
    const spans = new SpanReader(this.#spans)
    this.#spans = new WeakMap()
    const bytesOf = (record: unknown) => spans.bytesOf(record)
    const replaced: {chunks: Chunks; files: string[]}[] = []
    try {
      // the journal holds every line up to seq before a document does: memory is ahead of it by the lines
      // still being written, and a document holding a line the journal then failed to write (or a kill cut
      // short) leaves a hole before the next segment, which the start after refuses (docs/storage.md, "The documents' index")
      await this.#journal.cut(seq + 1)
      // each file goes only into the dir the store opened, not into one made again at its path meanwhile
      const [journal, documents] = [this.#journal, this.#documents]
      for (const {name, records} of snapshot) await journal.intoDir(() => documents.write(name, {seq, records}))
      for (const {chunks, snapshot} of taken)
        replaced.push({chunks, files: await journal.intoDir(() => chunks.write(seq, snapshot, bytesOf))})
      // last: a start compares each document with it, and the journal, dropped next, with its seq
      await journal.intoDir(() => writeIndex(documents, seq))
      await this.#documents.syncDir()
    } catch (error) {
      // the journal keeps everything until a later compaction succeeds, which deletes the files a manifest
      // written before the failure replaced
      for (const {name} of snapshot) this.#dirty.add(name)
      for (const {chunks, snapshot} of taken) chunks.restore(snapshot)
      for (const {chunks, files} of replaced) chunks.orphaned(files)
      throw error
    } finally {
      spans.close()
    }
    await this.#journal.intoDir(() => this.#journal!.dropSegmentsBefore(seq + 1))
    for (const {chunks, files} of replaced) await chunks.remove(files)
  }

  async close(): Promise<void> {
    const journal = this.#journal
    if (!journal) return
    try {
      // one running already took the changes up to its start: the changes since need one more
      if (this.#compacting) await this.compact()
      await this.compact()
      // with nothing to compact, a stop still says when the dir went, and the changes with it (docs/api.md, "Durability")
      if (!this.failure) journal.checkDir()
    } finally {
      // from here a commit is refused: the segment's file closes once the writes already taken are done
      this.#closed = new Error(`store: ${this.options.dir} is closed; open it again to write to it.`)
      // a stop that fails still lets go of the segment's file and the dir's lock
      try {
        await journal.close()
      } finally {
        await this.#unlock?.()
        this.#journal = undefined
      }
    }
  }
}
