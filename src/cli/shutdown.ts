import {constants} from 'node:os'

/**
 * What stops a long-running command: Ctrl+C, SIGTERM, and SIGHUP, which a closed terminal or a dropped SSH
 * session sends (what the command made, such as `listen`'s endpoint, must not outlive it either).
 */
export const STOPPING: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP']

/**
 * Resolves on the first SIGINT, SIGTERM or SIGHUP, so a long-running command can
 * clean up and exit 0. A second signal exits at once (128 + its number): a stuck
 * shutdown must never leave the terminal hanging.
 */
export function untilSignalled(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      for (const stopping of STOPPING) {
        process.off(stopping, onSignal).once(stopping, () => process.exit(128 + constants.signals[stopping]))
      }
      resolve(signal)
    }
    for (const stopping of STOPPING) process.on(stopping, onSignal)
  })
}

/**
 * `work`, a wait for something the server goes on with whatever the command does (an advance, an attempt): the
 * first SIGINT, SIGTERM or SIGHUP meanwhile prints `notice` on stderr, so that nobody takes it for undone and
 * asks again, and ends the command as a shell reports a kill (128 + its number). With `json` (the command's
 * --json), stdout gets the error body `interrupted` too, as every other end of a --json command prints one.
 *
 * @example
 * await sayingOnSignal('The advance goes on in the server.', client.advanceClock(60), this.jsonEnabled())
 */
export async function sayingOnSignal<T>(notice: string, work: Promise<T>, json = false): Promise<T> {
  const onSignal = (signal: NodeJS.Signals) => {
    const message = `Stopped waiting. ${notice}`
    // written at once, before the exit: stdout to a pipe or a file is written synchronously
    if (json) process.stdout.write(`${JSON.stringify({error: {code: 'interrupted', message}}, null, 2)}\n`)
    // past a spinner's line
    process.stderr.write(`${process.stderr.isTTY ? '\n' : ''}${message}\n`)
    process.exit(128 + constants.signals[signal])
  }
  for (const signal of STOPPING) process.once(signal, onSignal)
  try {
    return await work
  } finally {
    for (const signal of STOPPING) process.off(signal, onSignal)
  }
}

/** Whether a write failed because its reader is gone: a pipe's (`| head -1`, EPIPE) or a closed terminal (EIO). */
export const readerGone = (error: NodeJS.ErrnoException): boolean => error.code === 'EPIPE' || error.code === 'EIO'

/**
 * A signal that aborts on the first SIGINT, SIGTERM or SIGHUP, or once the reader of stdout is gone (`logs tail |
 * head -1`: the next line it prints fails with EPIPE): a streaming command stops reading and cleans up.
 */
export function abortOnSignal(): AbortSignal {
  const stop = new AbortController()
  void untilSignalled().then(() => stop.abort())
  // any other error ends the process in lean-entry.ts's listener, the first
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (readerGone(error)) stop.abort()
  })
  return stop.signal
}
