import {Errors} from '@oclif/core'
import {nestingProblem} from '../domain/json-depth.js'
import {withoutBom} from '../shared/json-file.js'
import {readInputText} from './input-text.js'

/**
 * A JSON object from a file, or from stdin when `file` is absent or `-`, as
 * readInputText reads them (a package's fixture, no wait at a terminal).
 * `named` says how the command is given a file, for the messages that ask
 * for one.
 *
 * @example
 * const body = await readJsonObject(flags.file) // cat check.json | tablepay checks push t12
 */
export async function readJsonObject(
  file: string | undefined,
  named = '--file FILE',
): Promise<Record<string, unknown>> {
  const {text, source} = await readInputText(file, {what: 'JSON', named})
  // a file that holds no JSON object, empty or not JSON, is a wrong command line as a bad value is: nothing was sent
  if (text.trim() === '') {
    throw new Errors.CLIError(`${source} is empty: put the JSON body in it.`, {exit: 2, code: 'missing_input'})
  }
  let value: unknown
  try {
    value = JSON.parse(withoutBom(text))
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
