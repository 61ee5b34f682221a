import type {Writable} from 'node:stream'

/**
 * Prints a failed command's error as oclif does and exits with its code,
 * once stdout and stderr are written. oclif's own handler ends the process
 * at once, which drops what a pipe has not taken yet: a slow reader got the
 * first 64 KiB of a long report (`checks lint *.json | less`), the pipe's
 * size, and no more (docs/cli.md, "Flags and exit codes").
 */
export async function handleFailure(error: Error): Promise<void> {
  const {Exit, handle} = await import('@oclif/core/handle')
  const exit = Exit.exit
  let code: number | undefined
  // the first code, as process.exit would have ended on it
  Exit.exit = ((exitCode = 0) => void (code ??= exitCode)) as typeof exit
  try {
    await handle(error)
  } finally {
    Exit.exit = exit
  }
  await Promise.all([process.stdout, process.stderr].map(written))
  exit(code)
}

/** Once `stream` holds nothing unwritten, or can take nothing more (its reader went away). */
function written(stream: Writable): Promise<void> {
  return new Promise((resolve) => {
    if (stream.writableLength === 0 || stream.destroyed) resolve()
    else
      stream
        .once('drain', resolve)
        .once('error', () => resolve())
        .once('close', resolve)
  })
}
