/**
 * Resolves on the first SIGINT or SIGTERM, so a long-running command can
 * clean up and exit 0. A second signal exits at once: a stuck shutdown must
 * never leave the terminal hanging.
 */
export function untilSignalled(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off('SIGINT', onSignal).off('SIGTERM', onSignal)
      process.once('SIGINT', () => process.exit(130)).once('SIGTERM', () => process.exit(143))
      resolve(signal)
    }
    process.on('SIGINT', onSignal).on('SIGTERM', onSignal)
  })
}

/** A signal that aborts on the first SIGINT or SIGTERM: a streaming command stops reading and cleans up. */
export function abortOnSignal(): AbortSignal {
  const stop = new AbortController()
  void untilSignalled().then(() => stop.abort())
  return stop.signal
}
