import {chmod, open} from 'node:fs/promises'
import {join} from 'node:path'
import {Low} from 'lowdb'
import {JSONFile} from 'lowdb/node'

/** The readable JSON document of one collection, and the journal seq it includes. */
export interface Document<T> {
  seq: number
  records: T[]
}

/**
 * lowdb's JSON file (atomic temp file + rename), kept private: the data dir
 * holds API keys. An adapter around the adapter, as lowdb intends.
 */
class PrivateJSONFile<T> extends JSONFile<T> {
  constructor(readonly path: string) {
    super(path)
  }

  override async write(data: T): Promise<void> {
    await super.write(data)
    await chmod(this.path, 0o600)
  }
}

/** One lowdb database per collection, `<dir>/<name>.json`. */
export class Documents {
  readonly #dbs = new Map<string, Low<Document<unknown>>>()

  constructor(
    readonly dir: string,
    readonly fsync: boolean,
  ) {}

  async read<T>(name: string): Promise<Document<T>> {
    const db = new Low<Document<unknown>>(new PrivateJSONFile(join(this.dir, `${name}.json`)), {seq: 0, records: []})
    await db.read()
    this.#dbs.set(name, db)
    return db.data as Document<T>
  }

  async write(name: string, doc: Document<unknown>): Promise<void> {
    const db = this.#dbs.get(name)!
    db.data = doc
    await db.write()
    if (this.fsync) await fsyncPath(join(this.dir, `${name}.json`))
  }

  /** With --fsync, the renames must reach the disk too before the journal is dropped. */
  async syncDir(): Promise<void> {
    if (this.fsync) await fsyncPath(this.dir)
  }
}

async function fsyncPath(path: string): Promise<void> {
  const handle = await open(path, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}
