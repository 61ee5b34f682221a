/**
 * Settles as `promise` does, or with `late` once `ms` have passed: a wait that nothing holds longer, a database
 * that answers nothing included. Its timer keeps no process alive.
 *
 * @example
 * const answered = await atMost(client.query('SELECT 1').then(() => true), 1000, false)
 */
export function atMost<T, L = undefined>(
  promise: Promise<T> | undefined,
  ms: number,
  late?: L,
): Promise<T | L | undefined> {
  return Promise.race([promise, new Promise<L | undefined>((resolve) => setTimeout(resolve, ms, late).unref())])
}
