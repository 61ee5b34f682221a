import {type Interfaces, toConfiguredId} from '@oclif/core'
import {CLIError} from '@oclif/core/errors'
import {errorBody} from '../errors.js'

/**
 * A wrong command line a hook found: exit 2 with `invalid_usage`, and with
 * --json the error body on stdout, as every other failure prints it.
 *
 * @example
 * throw usageError('"tablepay checks" is a group of commands: …', ['Run one of them.'], argv)
 */
export function usageError(message: string, suggestions: string[], argv: readonly string[]): CLIError {
  const error = new CLIError(message, {exit: 2, code: 'invalid_usage', suggestions})
  if (argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify(errorBody(error), null, 2)}\n`)
    Object.assign(error, {skipOclifErrorHandling: true})
  }
  return error
}

/** The commands `--help` lists, as typed (`checks push`), those of `topic` only when given. */
export const visibleCommands = (config: Interfaces.Config, topic?: string): string[] =>
  config.commands
    .filter((c) => !c.hidden && (topic === undefined || c.id.startsWith(`${topic}:`)))
    .map((c) => toConfiguredId(c.id, config))
