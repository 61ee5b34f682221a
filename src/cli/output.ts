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
}

/**
 * The output of a run with (`json`) or without --json.
 *
 * @example
 * outputFor(false).emit({status: 'ready'}, 'Ready.') // prints "Ready."
 */
export function outputFor(json: boolean): Output {
  return {
    // console.log prints a string as oclif's `log` does (util.format of one string is the string)
    emit: (record, text) => (json ? process.stdout.write(`${JSON.stringify(record)}\n`) : console.log(text)),
    notice: (text) => process.stderr.write(`${text}\n`),
  }
}
