import {Flags} from '@oclif/core'
import {pathPatternProblem} from '../../domain/path-pattern.js'
import {quotedInput} from '../../domain/quoted-input.js'

/**
 * `text`, refused when empty: a filter or id given as a variable left unset would match nothing, or name
 * nothing, and a script would take the empty answer as the true one.
 */
export function nonEmpty(text: string): string {
  if (text === '') throw new Error('is empty: give a value (is a variable unset?), or leave the flag out')
  return text
}

/** A flag that narrows a list, or names a record, by a text: never an empty one (`nonEmpty`). */
export const textFlag = Flags.custom<string>({parse: async (text) => nonEmpty(text)})

/**
 * `text` as a path pattern by the faults' rules (domain/path-pattern.ts): refused here as the server would
 * refuse it, so a wrong pattern is a wrong command line, not a 422.
 */
export function pathPattern(text: string): string {
  const problem = pathPatternProblem(nonEmpty(text))
  if (problem) throw new Error(`${quotedInput(text)}: ${problem}`)
  return text
}

/**
 * `text` in capitals, when it is one of `methods` (the methods a flag can match): refused here, as a wrong
 * command line, when it is not. `named` is how the refusal lists them.
 *
 * @example
 * methodOf('put', ['GET', 'PUT']) // 'PUT'
 */
export function methodOf(text: string, methods: readonly string[], named = methods.join(', ')): string {
  const method = nonEmpty(text).toUpperCase()
  if (!methods.includes(method)) throw new Error(`${quotedInput(text)} is not one of ${named}.`)
  return method
}
