import {createReadStream} from 'node:fs'

/** What is left after the last newline of a file: a line whose write was cut short. */
export interface Tail {
  /** Where the tail starts: the size to truncate the file to. */
  offset: number
  text: string
}

/**
 * Calls `onLine` with each newline-terminated line of the file, in order,
 * without ever holding the whole file: a data dir may be larger than the
 * longest string V8 can make (docs/storage.md). Returns the unterminated tail,
 * if any. A missing file rejects with ENOENT. `bytes` are the line as read
 * (valid only during the call): a checksum over them needs no second UTF-8
 * encoding of the text.
 *
 * @example
 * const tail = await readLines('journal.ndjson', (line, number) => console.log(number, line))
 */
export async function readLines(
  path: string,
  onLine: (line: string, number: number, bytes: Buffer) => void,
): Promise<Tail | undefined> {
  let pending: Buffer[] = []
  let offset = 0
  let number = 0
  for await (const chunk of createReadStream(path, {highWaterMark: 1 << 20}) as AsyncIterable<Buffer>) {
    let start = 0
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      const rest = chunk.subarray(start, end)
      const bytes = pending.length === 0 ? rest : Buffer.concat([...pending, rest])
      pending = []
      offset += bytes.length + 1
      onLine(bytes.toString(), ++number, bytes)
      start = end + 1
    }
    if (start < chunk.length) pending.push(chunk.subarray(start))
  }
  return pending.length === 0 ? undefined : {offset, text: Buffer.concat(pending).toString()}
}
