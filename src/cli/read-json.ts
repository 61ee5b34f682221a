import {text} from 'node:stream/consumers'
import {Errors} from '@oclif/core'
import {nestingProblem} from '../domain/json-depth.js'
import {withoutBom} from '../shared/json-file.js'
import {readFound} from '../shared/package-file.js'
import {unreadable} from './cli-error.js'

/**
 * A JSON object from a file, or from stdin when `file` is absent or `-`. A
 * relative path found nowhere here is looked up in the package, as the help's
 * examples (`fixtures/checks/open.json`) name it (shared/package-file.ts).
 * Refuses to wait on an interactive terminal: a forgotten `--file` would
 * otherwise look like a hang. `named` says how the command is given a file,
 * for the messages that ask for one.
 *
 * @example
 * const body = await readJsonObject(flags.file) // cat check.json | tablepay checks push t12
 */
export async function readJsonObject(
  file: string | undefined,
  named = '--file FILE',
): Promise<Record<string, unknown>> {
  const fromStdin = file === undefined || file === '-'
  // no input is a wrong command line, as a missing required flag is: exit 2 (docs/cli.md, "Flags and exit codes")
  if (fromStdin && process.stdin.isTTY) {
    throw new Errors.CLIError(`No JSON to read: pass ${named}, or pipe the JSON on stdin.`, {
      exit: 2,
      code: 'missing_input',
    })
  }
  const source = fromStdin ? 'stdin' : file
  let input: string
  try {
    input = fromStdin ? await text(process.stdin) : await readFound(file)
  } catch (error) {
    throw await unreadable(source, error, ', or pipe the JSON on stdin')
  }
  // input that holds no JSON object, empty or not JSON, is a wrong command line as a bad value is: nothing was sent
  if (input.trim() === '') {
    throw new Errors.CLIError(
      fromStdin
        ? `stdin is empty: pass ${named}, or pipe the JSON on stdin.`
        : `${file} is empty: put the JSON body in it.`,
      {exit: 2, code: 'missing_input'},
    )
  }
  let value: unknown
  try {
    value = JSON.parse(withoutBom(input))
  } catch (error) {
    throw new Errors.CLIError(`${source} is not valid JSON: ${(error as Error).message}`, {
      exit: 2,
      code: 'invalid_json',
    })
  }
  // it could not be sent: writing it out again overflows the stack
  const deep = nestingProblem(value)
  if (deep) throw new Errors.CLIError(`${source} ${deep}: check the file.`, {exit: 2, code: 'invalid_json'})
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Errors.CLIError(`${source} holds JSON but not an object: expected {…}.`, {exit: 2, code: 'invalid_json'})
  }
  return value as Record<string, unknown>
}
