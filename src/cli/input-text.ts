import {readFound, readText} from '../shared/package-file.js'
import {stdinToRead} from '../shared/read-at-most.js'
import {cliError, unreadable} from './cli-error.js'

/** How a command's messages ask for its input: the `what` to pipe, and how a file is `named` instead. */
export interface Asked {
  /** `JSON`, `scenario`: "No JSON to read", "pipe the JSON on stdin". */
  what: string
  /** `--file FILE`, `a file instead of -`: "pass --file FILE, or pipe …". */
  named: string
}

/** A command's input, and the name its messages give it: the path as given, or `stdin`. */
export interface InputText {
  text: string
  source: string
}

/** Whether a command reads stdin for `file`: `-`, or nothing where the file is optional (`checks push`). */
export const isStdin = (file: string | undefined): file is '-' | undefined => file === undefined || file === '-'

/**
 * The text of a file, or of stdin for `-` (or no file). A relative path found nowhere here is looked up in the
 * package, as the help's examples name fixtures (shared/package-file.ts). Refuses to wait on an interactive
 * terminal, where a forgotten file would look like a hang, and refuses an empty stdin, where a pipe gave nothing:
 * both a wrong command line, exit 2 with `missing_input` (docs/cli.md, "Flags and exit codes"). What cannot be
 * read, or holds more than any request takes (`/dev/urandom`), is `unreadable_input`, exit 2. An empty file is
 * the caller's to judge: a finding for `checks lint`.
 *
 * @example
 * const {text, source} = await readInputText(this.args.SCENARIO, {what: 'scenario', named: 'a file instead of -'})
 */
export async function readInputText(file: string | undefined, {what, named}: Asked): Promise<InputText> {
  const fromStdin = isStdin(file)
  const pipe = `, or pipe the ${what} on stdin`
  if (fromStdin && process.stdin.isTTY) {
    throw await cliError(`No ${what} to read: pass ${named}${pipe}.`, {exit: 2, code: 'missing_input'})
  }
  const source = fromStdin ? 'stdin' : file
  let text: string
  try {
    text = fromStdin ? await readText(stdinToRead()) : await readFound(file)
  } catch (error) {
    throw await unreadable(fromStdin ? undefined : file, error, pipe)
  }
  if (fromStdin && text.trim() === '') {
    throw await cliError(`stdin is empty: pass ${named}${pipe}.`, {exit: 2, code: 'missing_input'})
  }
  return {text, source}
}
