/**
 * What each exit code of a command means, as its --help lists them under EXIT CODES: code → meaning.
 * A code is a number, or a range (`'3-255'`) for a command that exits with another process's code.
 */
export type ExitCodes = Readonly<Record<string, string>>

/**
 * The codes every command exits with. A command states where it differs in
 * its `static exitCodes` (a code it adds, or a meaning more exact than this
 * one), and help.ts shows them merged, in order.
 *
 * @example
 * static override exitCodes = {1: 'The receiver did not answer 2xx.'}
 */
export const EXIT_CODES: ExitCodes = {
  0: 'Done.',
  1: 'It failed: the message says why.',
  // oclif's own usage errors exit 2 too (package.json, oclif.exitCodes)
  2: 'A wrong command line (an unknown command or flag, a bad value, missing input, a file it cannot read): nothing was done.',
}

/** The codes of a command that calls the server. */
export const API_EXIT_CODES: ExitCodes = {
  1: 'The server refused the request, was not found, or did not answer within --timeout: the message and its code say which.',
}

/**
 * A command that stops cleanly on Ctrl+C, SIGTERM or SIGHUP (shutdown.ts) ends at once on a second one, as a
 * shell reports a kill.
 */
export const SECOND_SIGNAL_EXIT_CODES: ExitCodes = {
  129: 'A second SIGHUP while stopping: it ended at once.',
  130: 'A second Ctrl+C while stopping: it ended at once.',
  143: 'A second SIGTERM while stopping: it ended at once.',
}

/** A command that waits for what the server goes on with when it is stopped (shutdown.ts, `sayingOnSignal`). */
export const STOPPED_WAITING_EXIT_CODES: ExitCodes = {
  129: 'Its terminal closed (SIGHUP) while it waited: the server goes on, as the message says.',
  130: 'Ctrl+C while it waited: the server goes on, as the message says.',
  143: 'SIGTERM while it waited: the server goes on, as the message says.',
}

/** The codes of a command that runs until stopped. */
export const UNTIL_STOPPED_EXIT_CODES: ExitCodes = {
  0: 'Stopped by Ctrl+C, SIGTERM or SIGHUP (its terminal closed).',
  ...SECOND_SIGNAL_EXIT_CODES,
}

/**
 * A command's exit codes and their meanings, lowest first: the shared ones with
 * the command's own over them (a plugin's command has none of its own).
 *
 * @example
 * exitCodesOf({exitCodes: {1: 'The signature is not valid.'}}) // [['0', 'Done.'], ['1', 'The signature…'], ['2', …]]
 */
export function exitCodesOf(command: {exitCodes?: ExitCodes}): [code: string, meaning: string][] {
  // a range sorts by its first code
  const first = ([code]: [string, string]) => Number.parseInt(code, 10)
  return Object.entries({...EXIT_CODES, ...command.exitCodes}).sort((a, b) => first(a) - first(b))
}
