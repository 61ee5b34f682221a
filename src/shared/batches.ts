interface Waiting<I, O> {
  input: I
  resolve(output: O): void
  reject(error: unknown): void
}

/**
 * Runs calls together: a call made while no batch is out starts one at the
 * end of this turn of the event loop, with every call made in that turn;
 * calls made while one is out go together in the next, once it ends (as
 * steno's writes do). So a batch grows with the time its work takes, and a
 * call alone waits one turn at most. `run` resolves with one output per
 * input, in their order; its failure is each call's.
 *
 * @example
 * const reads = new Batches((ids: readonly string[]) => readAll(ids))
 * const [a, b] = await Promise.all([reads.add('dlv_1'), reads.add('dlv_2')]) // one readAll
 */
export class Batches<I, O> {
  #next: Waiting<I, O>[] = []
  #out = false

  constructor(private readonly run: (inputs: readonly I[]) => Promise<readonly O[]>) {}

  add(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      if (this.#next.push({input, resolve, reject}) === 1 && !this.#out) setImmediate(() => this.#flush())
    })
  }

  #flush(): void {
    const batch = this.#next
    this.#next = []
    if (batch.length === 0) return
    this.#out = true
    Promise.resolve()
      .then(() => this.run(batch.map((waiting) => waiting.input)))
      .then(
        (outputs) => batch.forEach((waiting, i) => waiting.resolve(outputs[i]!)),
        (error: unknown) => batch.forEach((waiting) => waiting.reject(error)),
      )
      .finally(() => {
        this.#out = false
        this.#flush()
      })
  }
}
