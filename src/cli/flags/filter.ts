import {Flags} from '@oclif/core'

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
