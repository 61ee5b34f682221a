import {open, readFile, rename} from 'node:fs/promises'
import {basename, dirname, join} from 'node:path'
import {type Adapter, Low} from 'lowdb'

/** The readable JSON document of one collection, and the journal seq it includes. */
export interface Document<T> {
  seq: number
  records: T[]
}

/** Records serialized between two turns of the event loop when a document is written. */
const SLICE = 500

/**
 * A lowdb adapter for one collection's document: one record per line, so
 * the file stays readable and diffable. Like lowdb's JSONFile the write is
 * atomic (temp file + rename); unlike it, the JSON is made and written a
 * slice of records at a time, so rewriting a large collection never stalls
 * the server's requests for long. Private (0600): the data dir holds API keys.
 */
class RecordsFile implements Adapter<Document<unknown>> {
  /** Size of the file as last read or written, for the compaction trigger. */
  bytes = 0

  constructor(
    readonly path: string,
    readonly fsync: boolean,
  ) {}

  async read(): Promise<Document<unknown> | null> {
    let text: string
    try {
      text = await readFile(this.path, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
      throw error
    }
    this.bytes = Buffer.byteLength(text)
    return JSON.parse(text) as Document<unknown>
  }

  async write({seq, records}: Document<unknown>): Promise<void> {
    const temp = join(dirname(this.path), `.${basename(this.path)}.tmp`)
    const handle = await open(temp, 'w', 0o600)
    let bytes = 0
    const write = async (text: string) => {
      bytes += (await handle.write(text)).bytesWritten
    }
    try {
      await write(`{\n  "seq": ${seq},\n  "records": [`)
      for (let i = 0; i < records.length; i += SLICE) {
        const lines = records.slice(i, i + SLICE).map((record) => JSON.stringify(record))
        await write(`${i === 0 ? '' : ','}\n    ${lines.join(',\n    ')}`)
      }
      await write(records.length === 0 ? ']\n}\n' : '\n  ]\n}\n')
      if (this.fsync) await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(temp, this.path)
    this.bytes = bytes
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

  async read<T>(name: string): Promise<Document<T>> {
    const file = new RecordsFile(join(this.dir, `${name}.json`), this.fsync)
    const db = new Low<Document<unknown>>(file, {seq: 0, records: []})
    await db.read()
    this.#dbs.set(name, db)
    this.#files.set(name, file)
    return db.data as Document<T>
  }

  async write(name: string, doc: Document<unknown>): Promise<void> {
    const db = this.#dbs.get(name)!
    db.data = doc
    await db.write()
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
