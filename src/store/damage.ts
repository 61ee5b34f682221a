import {writeFile} from 'node:fs/promises'
import {join} from 'node:path'

/** Something a start found wrong in the data dir, and dropped under --repair. */
export interface Dropped {
  file: string
  line?: number
  problem: string
  /** The dropped line as it was on disk, if there is one. */
  text?: string
}

/** A data dir that cannot be read without losing something: the start is refused (docs/storage.md). */
export class DamagedDataError extends Error {
  readonly code = 'data_damaged'
}

/**
 * Collects the damage a start finds. Without `repair` the first finding
 * refuses the start, naming the file, the line and the remedy, before
 * anything on disk is changed; with it, what is dropped is kept for
 * `writeReport`.
 */
export class Damage {
  readonly dropped: Dropped[] = []

  constructor(
    readonly dir: string,
    readonly repair: boolean,
  ) {}

  /** `problem` completes "store: FILE [line N] …", e.g. "is corrupt: its checksum does not match". */
  found(file: string, problem: string, line?: number, text?: string): void {
    if (!this.repair) {
      throw new DamagedDataError(
        `store: ${file}${line === undefined ? '' : ` line ${line}`} ${problem}. Nothing was changed. ` +
          `Restore the data dir from a backup, or start with --repair to keep what is intact ` +
          `(what it drops is saved to a repair-….ndjson file in ${this.dir}).`,
      )
    }
    this.dropped.push({file, line, problem, text})
  }

  /** Writes what was dropped, one JSON object a line, next to the data; returns the file's path. */
  async writeReport(): Promise<string | undefined> {
    if (this.dropped.length === 0) return undefined
    const path = join(this.dir, `repair-${new Date().toISOString().replace(/[:.]/g, '-')}.ndjson`)
    await writeFile(path, this.dropped.map((d) => JSON.stringify(d) + '\n').join(''), {mode: 0o600})
    return path
  }
}
