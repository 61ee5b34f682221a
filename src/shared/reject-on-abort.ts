/**
 * A promise that rejects with `error()` once `signal` aborts (at once when
 * it has): raced against long work, so a Ctrl+C still reaches the cleanup
 * after it. A rejection nobody awaits any more (the work ended first) is no
 * one's error.
 *
 * @example
 * const stopped = rejectOnAbort(signal, () => new Error('interrupted'))
 * await Promise.race([work(), stopped])
 */
export function rejectOnAbort(signal: AbortSignal | undefined, error: () => Error): Promise<never> {
  const stopped = new Promise<never>((_, reject) => {
    const stop = () => reject(error())
    if (signal?.aborted) stop()
    signal?.addEventListener('abort', stop, {once: true})
  })
  stopped.catch(() => {})
  return stopped
}
