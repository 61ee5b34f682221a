import {chmod, stat, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {Errors} from '@oclif/core'
import {textFlag} from './filter.js'

/**
 * `--output FILE`: a command's document written to FILE instead of printed (`openapi`, `snapshots export`);
 * never empty, as `-o "$OUT"` with OUT unset would print what was meant for a file.
 */
export const outputFlag = textFlag({
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
    if (secret) await makePrivate(file)
    await writeFile(file, text, secret ? {mode: 0o600} : {})
  } catch (error) {
    const directory = (error as NodeJS.ErrnoException).code === 'EISDIR'
    throw new Errors.CLIError(`Cannot write ${file}: ${(error as Error).message}`, {
      exit: 1,
      code: 'output_failed',
      suggestions: [
        directory
          ? `Name a file in it (${join(file, 'NAME.json')}), or leave out --output to print it.`
          : 'Write to a directory that exists and that you can write to, or leave out --output to print it.',
      ],
    })
  }
}

/**
 * writeFile's mode is a new file's only: a file written over is made private before the secrets go in. What is
 * no file is left as it is: a directory (the write then fails), or a device such as `/dev/stdout`.
 */
async function makePrivate(file: string): Promise<void> {
  const found = await stat(file).catch((error: NodeJS.ErrnoException) =>
    error.code === 'ENOENT' ? undefined : Promise.reject(error),
  )
  if (found?.isFile()) await chmod(file, 0o600)
}
