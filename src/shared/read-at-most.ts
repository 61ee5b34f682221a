import {fstatSync} from 'node:fs'

/**
 * The largest body any request takes: an import's, as an export of a busy account is larger than the API's
 * 1 MiB. A file a command or a start reads for a request is read no further (cli/input-text.ts, server/start-files.ts).
 */
export const SNAPSHOT_BODY_LIMIT = 256 * 1024 * 1024

/**
 * Every byte of `stream`, or undefined once it passes `most` bytes: a file named by mistake (`/dev/zero`, a log
 * that grows) ends the read instead of filling the memory. Imports nothing: `verify` and `sign` load it at start
 * (docs/benchmarks.md).
 *
 * @example
 * const bytes = await readAtMost(createReadStream('seed.json'), SNAPSHOT_BODY_LIMIT)
 */
export async function readAtMost(stream: NodeJS.ReadableStream, most: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = []
  let bytes = 0
  for await (const chunk of stream) {
    const part = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
    bytes += part.length
    if (bytes > most) return undefined
    chunks.push(part)
  }
  return Buffer.concat(chunks)
}

/**
 * `process.stdin`, refused when it is a directory (`< somedir`): Node ends such a stdin at once, as if it were
 * empty, where its read fails (EISDIR). A stdin that cannot be looked at (closed) is left to the read.
 *
 * @example
 * const bytes = await readAtMost(stdinToRead(), SNAPSHOT_BODY_LIMIT)
 */
export function stdinToRead(): NodeJS.ReadableStream {
  let directory = false
  try {
    directory = fstatSync(0).isDirectory()
  } catch {
    // no stdin at all: the read says so
  }
  if (directory) throw Object.assign(new Error('EISDIR: illegal operation on a directory, read'), {code: 'EISDIR'})
  return process.stdin
}
