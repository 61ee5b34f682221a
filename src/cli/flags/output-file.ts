import {chmod, writeFile} from 'node:fs/promises'
import {Errors, Flags} from '@oclif/core'

/** `--output FILE`: a command's document written to FILE instead of printed (`openapi`, `snapshots export`). */
export const outputFlag = Flags.string({
  char: 'o',
  helpValue: 'FILE',
  summary: 'Write the document to FILE instead of printing it.',
})

/**
 * Writes `text` to `file`, or ends the command with `output_failed` (exit 1), saying what to do instead. A
 * `secret` document (a snapshot holds webhook secrets) is made readable by its owner only, as the data dir is.
 */
export async function writeOutput(file: string, text: string, {secret = false} = {}): Promise<void> {
  try {
    // writeFile's mode is a new file's only: one written over is made private before the secrets go in
    if (secret)
      await chmod(file, 0o600).catch((error: NodeJS.ErrnoException) => error.code === 'ENOENT' || Promise.reject(error))
    await writeFile(file, text, secret ? {mode: 0o600} : {})
  } catch (error) {
    throw new Errors.CLIError(`Cannot write ${file}: ${(error as Error).message}`, {
      exit: 1,
      code: 'output_failed',
      suggestions: ['Write to a directory that exists and that you can write to, or leave out --output to print it.'],
    })
  }
}
