/**
 * The server's line for an attempt that failed on our side. A storage out of reach (a failed
 * data dir, reported once already; a database, which comes back) gets one line that says what
 * becomes of the delivery; anything else keeps its stack, for a bug report.
 *
 * @example
 * console.error(attemptFailure(delivery.id, error, service.deliveries.failure))
 */
export function attemptFailure(id: string, error: Error, storageFailure: Error | undefined): string {
  if (!storageFailure && error.name !== 'DatabaseUnavailable')
    return `[tablepay] delivery ${id}: ${error.stack ?? error}`
  return (
    `[tablepay] delivery ${id}: its attempt could not be recorded (${error.message}). ` +
    'It stays pending and is attempted again once the storage works: at once when a database is back, after a restart for a data dir.'
  )
}
