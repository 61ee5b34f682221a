import type {FileHandle} from 'node:fs/promises'
import {crc32} from 'node:zlib'

/** The buffer's size to begin with: a slice of 100 events or checks fits (about 150–190 KB). */
const START_BYTES = 256 * 1024

/** A text this long has its bytes counted before it is copied, not guessed at 3 per character (a snapshot's records). */
const LONG_CHARS = 64 * 1024

/**
 * A file written through one buffer: the parts of a slice of records are
 * copied into it, then written in one call. A compaction writes tens of
 * thousands of records, most of them bytes copied from the journal; a
 * Buffer for each, and one more for each text between them, were garbage
 * the server's collections paid for (docs/benchmarks.md, "Compaction's
 * share"). The CRC-32 goes on over the parts added as `counted`.
 *
 * @example
 * const out = new FileOut(handle)
 * out.add('[')
 * out.add(Buffer.from('{"id":"evt_1"}'), true)
 * out.add(']')
 * await out.flush()
 */
export class FileOut {
  #buffer = Buffer.allocUnsafe(START_BYTES)
  #used = 0
  /** Bytes written so far. */
  bytes = 0
  crc = 0

  constructor(readonly handle: FileHandle) {}

  /** Bytes added and not yet written. */
  get pending(): number {
    return this.#used
  }

  add(part: string | Buffer, counted = false): void {
    // a UTF-16 unit is at most 3 bytes of UTF-8
    const most =
      typeof part !== 'string' ? part.length : part.length < LONG_CHARS ? part.length * 3 : Buffer.byteLength(part)
    if (this.#used + most > this.#buffer.length) this.#grow(this.#used + most)
    const start = this.#used
    this.#used += typeof part === 'string' ? this.#buffer.write(part, start) : part.copy(this.#buffer, start)
    if (counted) this.crc = crc32(this.#buffer.subarray(start, this.#used), this.crc)
  }

  /** Writes what was added. */
  async flush(): Promise<void> {
    let done = 0
    while (done < this.#used) done += (await this.handle.write(this.#buffer, done, this.#used - done)).bytesWritten
    this.bytes += done
    this.#used = 0
  }

  #grow(needed: number): void {
    const grown = Buffer.allocUnsafe(Math.max(needed, this.#buffer.length * 2))
    this.#buffer.copy(grown, 0, 0, this.#used)
    this.#buffer = grown
  }
}
