/**
 * Every byte of `stream`, or undefined once it passes `most` bytes: a file named by mistake (`/dev/zero`, a log
 * that grows) ends the read instead of filling the memory. Imports nothing: `verify` and `sign` load it at start
 * (docs/benchmarks.md).
 *
 * @example
 * const bytes = await readAtMost(createReadStream('seed.json'), 256 * 1024 ** 2)
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
