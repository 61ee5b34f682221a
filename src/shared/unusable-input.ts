/**
 * A file or directory someone named (`serve --data`, `--seed`) that cannot
 * be used as it is: the input was the wrong choice, so `serve` and `exec`
 * report it as a wrong command line (exit 2) rather than a failed start.
 * The message names the input, what is wrong with it, and what to do.
 *
 * @example
 * throw new UnusableInputError('store: cannot make the data dir /proc/x: …')
 */
export class UnusableInputError extends Error {}
