import {errorBody} from './errors.js'
import type {CliErrorCode} from './error-codes.js'

/** What a failed run prints with --json instead of the error body, when it has a report of its own (verify's verdict). */
export interface CliFailureOptions {
  code: CliErrorCode
  suggestions?: string[]
  report?: unknown
  /**
   * 2 for a wrong command line (nothing was done), as oclif's own usage errors; 127 and 126 for a
   * command `exec` cannot find or cannot run, as shells; else 1.
   */
  exit?: 1 | 2 | 126 | 127
}

/**
 * oclif's CLIError (exit 1, or `exit`), imported only when a command fails: `verify`
 * and `sign` run without loading @oclif/core (see lean-entry.ts), yet fail
 * with the very error oclif prints.
 *
 * @example
 * throw await cliError('No signing secret: pass --secret whsec_….', {code: 'missing_secret', exit: 2})
 */
export async function cliError(
  message: string,
  {code, suggestions, report, exit = 1}: CliFailureOptions,
): Promise<Error> {
  const {CLIError} = await import('@oclif/core/errors')
  return Object.assign(new CLIError(message, {exit, code, suggestions}), report === undefined ? {} : {report})
}

/**
 * A file named that cannot be read (`file`, the way it was named; undefined for stdin): the wrong one to name,
 * so a wrong command line as a missing one is, exit 2 (docs/cli.md, "Flags and exit codes"). `orElse` adds
 * another way to give it, where a file was named.
 *
 * @example
 * throw await unreadable('body.json', enoent, ', or pipe the body on stdin')
 */
export function unreadable(file: string | undefined, error: unknown, orElse = ''): Promise<Error> {
  const [message, step] =
    file === undefined
      ? // stdin made of what cannot be read (`< somedir`): there is no path to check
        [`Cannot read stdin: ${(error as Error).message}`, 'Send a file or a pipe to stdin, or name the file instead']
      : file === ''
        ? // an empty path is a variable left unset, which the system's "open ''" does not say
          ['The file path given is empty (is a variable unset?).', `Name the file${orElse}`]
        : [
            `Cannot read ${file}: ${(error as Error).message}`,
            `Check the path (a relative one is read from the current directory)${orElse}`,
          ]
  return cliError(message, {code: 'unreadable_input', exit: 2, suggestions: [`${step}.`]})
}

/** The exit code an error asks for (oclif's `exit`: 2 for a wrong command line), if any. */
export const exitOf = (error: unknown): number | undefined => (error as {oclif?: {exit?: number}}).oclif?.exit

/** What --json prints for a failure: the report it carries, else the error body. */
export function failureJson(error: unknown): unknown {
  const report = error !== null && typeof error === 'object' && 'report' in error ? error.report : undefined
  return report ?? errorBody(error)
}
