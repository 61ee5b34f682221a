/**
 * Work run one piece after another, in the order handed in, each once the one before has ended: a failure is
 * its own caller's, never the next piece's.
 *
 * @example
 * const turns = new Turns()
 * const made = await turns.run(() => createScratch('acct_demo'))
 */
export class Turns {
  #last: Promise<unknown> = Promise.resolve()

  /** Runs `work` once every piece handed in before it has ended; resolves or rejects as it does. */
  run<T>(work: () => T | Promise<T>): Promise<T> {
    const run = this.#last.then(work)
    this.#last = run.catch(() => undefined)
    return run
  }

  /** Resolves once every piece handed in so far has ended. */
  async ended(): Promise<void> {
    await this.#last
  }
}
