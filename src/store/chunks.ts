import {readdir, rm} from 'node:fs/promises'
import {join} from 'node:path'
import type {Damage} from './damage.js'
import {type Documents, type DocumentState, type Keep, readVouched} from './documents.js'

/**
 * One chunk as the manifest lists it: chunk `chunk` holds the records whose
 * place lies in [chunk × size, (chunk + 1) × size), in its file of version
 * `version`, with `count` records whose JSON has CRC-32 `crc`.
 */
export interface ChunkEntry {
  chunk: number
  version: number
  size: number
  count: number
  crc: number
}

/** Places per chunk in a new data dir; one that has chunks keeps the size it was written with. */
export const CHUNK_SIZE = 10_000

/** The records of the chunks a compaction rewrites, taken at once so they match its seq. */
export interface ChunkSnapshot {
  chunks: Map<number, unknown[]>
  /** Whether it is a rewrite of every chunk: the manifest is written even with no chunk to write. */
  all: boolean
}

/** A collection's records with their places, in the order of their places. */
export interface Placed<T> {
  forEachPlaced(visit: (record: T, seq: number) => void): void
}

const isCount = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 0

function isEntry(value: unknown): value is ChunkEntry {
  const entry = value as Partial<ChunkEntry>
  return (
    isCount(entry.chunk) &&
    isCount(entry.version) &&
    isCount(entry.count) &&
    isCount(entry.crc) &&
    isCount(entry.size) &&
    entry.size > 0
  )
}

/** Whether a record of the manifest document names a chunk: events, which an earlier layout kept there, have an id. */
const looksLikeEntry = (record: unknown) =>
  Object.hasOwn(record as object, 'chunk') && !Object.hasOwn(record as object, 'id')

/**
 * A collection stored in chunks, so that a compaction rewrites only the
 * chunks that changed (docs/storage.md, "Chunks"): `<name>.<chunk>.<version>.json`
 * files, each a document like any other, and `<name>.json`, the manifest,
 * a document whose records list the chunks. Writing the manifest (temp file
 * + rename) is what makes a compaction's new chunk files part of the data:
 * until then the old ones, which it does not touch, are what a start reads.
 */
export class Chunks {
  /** The chunks the manifest on disk lists, by number, with the size of their file. */
  #listed = new Map<number, ChunkEntry & {bytes: number}>()
  /** The highest version of each chunk seen on disk or written, so that a new file never takes the name of one. */
  #versions = new Map<number, number>()
  /** Files of this collection's chunks that the manifest does not list: left by a killed compaction or migration. */
  #orphans: string[] = []
  /** Chunks changed since the last compaction (`true`: all, and the manifest). */
  #dirty = new Set<number>()
  #all = false
  #files: RegExp

  constructor(
    readonly name: string,
    readonly documents: Documents,
    public size: number = CHUNK_SIZE,
  ) {
    this.#files = new RegExp(`^${name}\\.(\\d+)\\.(\\d+)\\.json$`)
  }

  fileOf(chunk: number, version: number): string {
    return `${this.name}.${String(chunk).padStart(6, '0')}.${version}.json`
  }

  /** Bytes of the chunks on disk, for the compaction trigger. */
  get bytes(): number {
    let total = 0
    for (const entry of this.#listed.values()) total += entry.bytes
    return total
  }

  /** Whether a compaction has anything of this collection to write. */
  get pending(): boolean {
    return this.#all || this.#dirty.size > 0
  }

  /** The record at place `seq` changed (was stored, replaced or deleted). */
  touch(seq: number): void {
    this.#dirty.add(Math.floor(seq / this.size))
  }

  /** The next compaction rewrites every chunk and the manifest: after a migration or a repair. */
  rewriteAll(): void {
    this.#all = true
  }

  /**
   * Reads the manifest, then each chunk it lists, handing each chunk's
   * records to `load` in the order of the chunks; a manifest of an earlier
   * layout (the records themselves) is handed over whole, as chunk
   * `undefined`. A listed chunk that is missing, or that does not hold what
   * the manifest says, is damage; chunk files the manifest does not list are
   * not (`removeOrphans` deletes them once the start goes on). `unread`
   * keeps the records of a chunk the manifest vouches for unparsed, as the
   * bytes read, knowing those fields (unread.ts).
   */
  async read(
    damage: Damage,
    load: (chunk: number | undefined, records: unknown[]) => void,
    unread?: readonly string[],
  ): Promise<{seq: number; state: DocumentState}> {
    const path = join(this.documents.dir, `${this.name}.json`)
    const seen = damage.dropped.length
    const manifest = await this.documents.read<unknown>(this.name, damage)
    const found = await this.#found()
    const entries = manifest.records.filter(looksLikeEntry)
    const records = manifest.records.filter((record) => !looksLikeEntry(record))
    if (entries.length > 0 && records.length > 0) {
      damage.found(path, `is corrupt: it holds both chunk entries and ${this.name} records`)
    }
    const valid = entries.filter(isEntry).sort((a, b) => a.chunk - b.chunk)
    if (valid.length < entries.length) damage.found(path, 'is corrupt: a chunk entry lacks a field or has a bad one')
    if (new Set(valid.map((e) => e.size)).size > 1) damage.found(path, 'is corrupt: its chunks differ in size')
    if (new Set(valid.map((e) => e.chunk)).size < valid.length) damage.found(path, 'is corrupt: it lists a chunk twice')
    if (valid[0]) this.size = valid[0].size
    // a manifest swapped for another document is damage already, and read as missing
    if ((manifest.state === 'missing' || manifest.state === 'foreign') && found.size > 0) {
      const names = [...found.values()].map(({file}) => file)
      if (manifest.state === 'missing')
        damage.found(path, `is missing, while files of its chunks are there (${names.slice(0, 3).join(', ')}…)`)
    }
    // --repair of a manifest missing, or with entries dropped: the newest file of each chunk it does not list,
    // checked by its own trailer, rather than deleted as an orphan
    const torn = manifest.state === 'missing' || damage.dropped.slice(seen).some(({file}) => file === path)
    const listed = new Set(valid.map(({chunk}) => chunk))
    const adopted: ChunkEntry[] = [...found]
      .filter(([chunk]) => (torn || manifest.state === 'foreign') && !listed.has(chunk))
      .map(([chunk, {version}]) => ({chunk, version, size: this.size, count: -1, crc: -1}))
    if (records.length > 0) load(undefined, records)
    for (const entry of [...valid, ...adopted].sort((a, b) => a.chunk - b.chunk)) {
      const file = this.fileOf(entry.chunk, entry.version)
      const chunk = await this.#readChunk(file, entry, damage, unread)
      const chunkPath = join(this.documents.dir, file)
      if (!chunk) {
        damage.found(chunkPath, `is missing: ${this.name}.json lists it, with ${entry.count} records`)
        continue
      }
      // another collection's chunk: reported as such (documents.ts), and none of its records kept
      if (chunk.state === 'foreign') continue
      if (chunk.state !== 'current') {
        damage.found(chunkPath, 'is corrupt: it is not laid out as the store writes its chunks')
      } else if (chunk.count > entry.size) {
        // its records would spill into the next chunk's places, and be written there too
        damage.found(chunkPath, `is corrupt: it holds ${chunk.count} records, more than a chunk's ${entry.size} places`)
        chunk.records.length = entry.size
      } else if (entry.count >= 0 && (chunk.count !== entry.count || chunk.crc !== entry.crc)) {
        const holds = chunk.count === entry.count ? 'records that do not match' : `${chunk.count} records, not`
        damage.found(chunkPath, `is corrupt: it holds ${holds} the ${entry.count} that ${this.name}.json lists`)
      }
      load(entry.chunk, chunk.records)
      this.#listed.set(entry.chunk, {...entry, count: chunk.count, crc: chunk.crc, bytes: chunk.bytes})
    }
    for (const [chunk, {version}] of found) this.#versions.set(chunk, version)
    for (const [chunk, {version}] of this.#listed)
      this.#versions.set(chunk, Math.max(version, this.#versions.get(chunk) ?? 0))
    const listedFiles = new Set([...this.#listed.values()].map((e) => this.fileOf(e.chunk, e.version)))
    this.#orphans = (await readdir(this.documents.dir)).filter((f) => this.#files.test(f) && !listedFiles.has(f))
    const state = records.length > 0 || adopted.length > 0 ? 'legacy' : manifest.state
    return {seq: manifest.seq, state}
  }

  /**
   * A chunk's file, read. With `unread` its records stay unparsed when the
   * manifest vouches for its bytes (their count and checksum as written)
   * and nothing else in it is wrong; otherwise it is read again, parsed,
   * and what is wrong goes to `damage` as without `unread`.
   */
  async #readChunk(file: string, entry: ChunkEntry, damage: Damage, unread: readonly string[] | undefined) {
    const read = (found: Damage, keep: Keep) => this.documents.readApart<unknown>(file, found, keep, this.name)
    if (!unread || entry.count < 0) return read(damage, 'parsed')
    const listed = (chunk: {count: number; crc: number}) =>
      chunk.count === entry.count && chunk.crc === entry.crc && chunk.count <= entry.size
    return readVouched(damage, unread, read, listed)
  }

  /** The newest file of each chunk in the dir. */
  async #found(): Promise<Map<number, {version: number; file: string}>> {
    const found = new Map<number, {version: number; file: string}>()
    for (const file of await readdir(this.documents.dir)) {
      const match = this.#files.exec(file)
      if (!match) continue
      const chunk = Number(match[1])
      const version = Number(match[2])
      if (version > (found.get(chunk)?.version ?? -1)) found.set(chunk, {version, file})
    }
    return found
  }

  /** Deletes the chunk files the manifest does not list; call once the start is sure to go on. */
  async removeOrphans(): Promise<void> {
    for (const file of this.#orphans) await rm(join(this.documents.dir, file), {force: true})
    this.#orphans = []
  }

  /** Takes the records of the changed chunks from `table` (the records' places decide their chunk), and clears the marks. */
  take<T>(table: Placed<T>): ChunkSnapshot {
    const chunks = new Map<number, unknown[]>()
    if (this.#all) for (const chunk of this.#listed.keys()) chunks.set(chunk, [])
    else for (const chunk of this.#dirty) chunks.set(chunk, [])
    const all = this.#all
    table.forEachPlaced((record, seq) => {
      const chunk = Math.floor(seq / this.size)
      let records = chunks.get(chunk)
      if (!records && all) chunks.set(chunk, (records = []))
      records?.push(record)
    })
    this.#dirty.clear()
    this.#all = false
    return {chunks, all}
  }

  /** A compaction failed: what it took is marked again. */
  restore({chunks, all}: ChunkSnapshot): void {
    for (const chunk of chunks.keys()) this.#dirty.add(chunk)
    this.#all ||= all
  }

  /**
   * Writes the taken chunks as new files, then the manifest that lists
   * them instead of the files they replace; resolves with those replaced
   * files, to delete once the manifest is durable. A kill before the
   * manifest's rename leaves the old manifest and old files: the new files
   * are orphans, and the journal, not yet dropped, holds their changes.
   * `bytesOf` gives the JSON of the records the journal holds already.
   */
  async write(
    seq: number,
    {chunks}: ChunkSnapshot,
    bytesOf?: (record: unknown) => Buffer | undefined,
  ): Promise<string[]> {
    const listed = new Map(this.#listed)
    const replaced: string[] = []
    const written: string[] = []
    try {
      for (const [chunk, records] of chunks) {
        const old = listed.get(chunk)
        if (old) replaced.push(this.fileOf(chunk, old.version))
        if (records.length === 0) {
          listed.delete(chunk)
          continue
        }
        const version = (this.#versions.get(chunk) ?? 0) + 1
        this.#versions.set(chunk, version)
        const file = this.fileOf(chunk, version)
        const {count, crc, bytes} = await this.documents.writeApart(file, {seq, records}, bytesOf, this.name)
        written.push(file)
        listed.set(chunk, {chunk, version, size: this.size, count, crc, bytes})
      }
      // with --fsync, the chunks' renames reach the disk before the manifest that names them
      await this.documents.syncDir()
      const entries = [...listed.values()]
        .sort((a, b) => a.chunk - b.chunk)
        .map(({chunk, version, size, count, crc}) => ({chunk, version, size, count, crc}))
      await this.documents.write(this.name, {seq, records: entries})
    } catch (error) {
      // no manifest names them: the next compaction that succeeds deletes them
      this.orphaned(written)
      throw error
    }
    this.#listed = listed
    return replaced
  }

  /** Files its manifest no longer lists, written by a compaction that then failed: the next that succeeds deletes them. */
  orphaned(files: readonly string[]): void {
    this.#orphans.push(...files)
  }

  /** Deletes the files a durable manifest no longer lists: those it replaced, and those of a compaction that failed. */
  async remove(replaced: string[]): Promise<void> {
    const files = [...replaced, ...this.#orphans]
    this.#orphans = []
    for (const file of files) await rm(join(this.documents.dir, file), {force: true})
  }
}
