import {createReadStream} from 'node:fs'

/** What is left after the last newline of a file: a line whose write was cut short. */
export interface Tail {
  /** Where the tail starts: the size to truncate the file to. */
  offset: number
  text: string
}

/**
 * Calls `onLine` with the bytes of each newline-terminated line of the file,
 * in order, without ever holding the whole file: a data dir may be larger
 * than the longest string V8 can make (docs/storage.md). Returns the
 * unterminated tail, if any. A missing file rejects with ENOENT. The bytes
 * are the caller's to decode, or to keep: they lie in the buffer the file
 * was read into, which nothing reuses (a start keeps events so,
 * store/unread.ts).
 *
 * @example
 * const tail = await readLines('journal.ndjson', (bytes, number) => console.log(number, bytes.toString()))
 */
export async function readLines(
  path: string,
  onLine: (bytes: Buffer, number: number) => void,
): Promise<Tail | undefined> {
  let pending: Buffer[] = []
  let offset = 0
  let number = 0
  const chunks = createReadStream(path, {highWaterMark: 1 << 20}) as AsyncIterable<Buffer>
  for await (const chunk of named(chunks, path)) {
    let start = 0
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      const rest = chunk.subarray(start, end)
      const bytes = pending.length === 0 ? rest : Buffer.concat([...pending, rest])
      pending = []
      offset += bytes.length + 1
      onLine(bytes, ++number)
      start = end + 1
    }
    if (start < chunk.length) pending.push(chunk.subarray(start))
  }
  return pending.length === 0 ? undefined : {offset, text: Buffer.concat(pending).toString()}
}

/**
 * `chunks`, whose read failure names the file `path`: a read's errno does not (`EISDIR: illegal operation on a
 * directory, read`), and the user must learn which of the data dir's files to move (shared/disk-failure.ts).
 */
async function* named(chunks: AsyncIterable<Buffer>, path: string): AsyncIterable<Buffer> {
  try {
    yield* chunks
  } catch (error) {
    const errno = error as NodeJS.ErrnoException
    if (errno?.code !== undefined && errno.path === undefined) errno.path = path
    throw error
  }
}
