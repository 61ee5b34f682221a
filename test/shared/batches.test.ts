import {describe, expect, it} from 'vitest'
import {Batches} from '../../src/shared/batches.js'

/** Batches whose runs the test ends: `runs` holds each run's inputs and its `end`. */
function heldBatches() {
  const runs: {inputs: readonly number[]; end: (error?: Error) => void}[] = []
  const batches = new Batches(
    (inputs: readonly number[]) =>
      new Promise<number[]>((resolve, reject) =>
        runs.push({inputs, end: (error) => (error ? reject(error) : resolve(inputs.map((n) => n * 10)))}),
      ),
  )
  return {batches, runs}
}

const turn = () => new Promise((resolve) => setImmediate(resolve))

describe('Batches', () => {
  it('runs the calls of one turn together, each answered with its own output', async () => {
    const {batches, runs} = heldBatches()
    const answers = Promise.all([batches.add(1), batches.add(2), batches.add(3)])
    await turn()
    expect(runs.map((run) => run.inputs)).toEqual([[1, 2, 3]])
    runs[0]!.end()
    expect(await answers).toEqual([10, 20, 30])
  })

  it('gathers the calls made while a run is out into the next, which starts once it ends', async () => {
    const {batches, runs} = heldBatches()
    const first = batches.add(1)
    await turn()
    const later = [batches.add(2), batches.add(3)]
    await turn()
    await turn()
    expect(runs.map((run) => run.inputs)).toEqual([[1]])
    runs[0]!.end()
    expect(await first).toBe(10)
    await turn()
    expect(runs.map((run) => run.inputs)).toEqual([[1], [2, 3]])
    runs[1]!.end()
    expect(await Promise.all(later)).toEqual([20, 30])
  })

  it("a run's failure is each of its calls', and the next run goes ahead", async () => {
    const {batches, runs} = heldBatches()
    const failing = [batches.add(1), batches.add(2)]
    await turn()
    const next = batches.add(3)
    runs[0]!.end(new Error('database gone'))
    for (const call of failing) await expect(call).rejects.toThrow('database gone')
    await turn()
    runs[1]!.end()
    expect(await next).toBe(30)
  })
})
