import {stripVTControlCharacters} from 'node:util'
import {colorsEnabled} from './views/colors.js'
import {withSpinner} from './views/spinner.js'

/**
 * `text` as `stream` takes it: `style` colours by stdout, so text bound for another stream (stderr, a file
 * it is redirected to) loses its colours where that stream takes none.
 */
const forStream = (stream: NodeJS.WriteStream, text: string): string =>
  colorsEnabled(stream) ? text : stripVTControlCharacters(text)

/**
 * How a command that keeps printing (`serve`, `deliveries tail`, `listen`)
 * prints: each record as one JSON line with --json, so scripts read each as
 * it comes, else as the human text; and status lines for the person
 * watching, on stderr even with --json, so stdout stays pure records and a
 * script may wait for the line. `Command` prints so, and so does the lean
 * path, which runs `serve` without oclif (lean-entry.ts).
 */
export interface Output {
  emit(json: unknown, text: string): void
  notice(text: string): void
  /** `work`, with a spinner saying `text` on stderr while it lasts over a second: for a person only (views/spinner.ts). */
  wait<T>(text: string, work: Promise<T>): Promise<T>
}

/**
 * The output of a run with (`json`) or without --json, its records on
 * `records`: stdout, but for `exec`, whose stdout is its command's.
 *
 * @example
 * outputFor(false).emit({status: 'ready'}, 'Ready.') // prints "Ready."
 */
export function outputFor(json: boolean, records: NodeJS.WriteStream = process.stdout): Output {
  return {
    // a string and a newline, as oclif's `log` prints it
    emit: (record, text) => records.write(`${json ? JSON.stringify(record) : forStream(records, text)}\n`),
    notice: (text) => process.stderr.write(`${forStream(process.stderr, text)}\n`),
    wait: (text, work) => withSpinner(text, work, {quiet: json}),
  }
}
