// Resident memory through the push rounds on one server, then its restarts: after SIGKILL and after a clean stop.
import {changesSent} from '../load.js'
import {restarts, sample, watchFloor} from '../memory.js'
import {figure, progress, round} from '../report.js'

/** @type {import('../context.js').Group} */
export default {
  name: 'memory',
  needs: ['big', 'big-filled', 'rounds'],
  async runs(bench, rounds) {
    const big = await bench.need('big')
    const {dir} = await bench.need('seeded')
    const samples = (bench.results.memory_samples = [])
    const floor = watchFloor(big.pid)
    rounds.stoppers.push(async () => floor.stop())
    rounds.afterRound.push(() => samples.push(sample(big, dir, changesSent(bench.sets.big), floor.take())))
  },
  async run(bench) {
    await bench.need('rounds')
    const [big, seeded] = [await bench.need('big'), await bench.need('seeded')]
    progress('restarts after the push rounds (SIGKILL, then a clean stop)')
    const samples = bench.results.memory_samples
    const last = samples[samples.length - 1]
    const {kill, stop, server} = await restarts(big, seeded.dir)
    bench.stoppers.push(() => server.kill())
    bench.results.memory = {seeded: {ms: seeded.startMs, disk_mb: seeded.diskMb}, kill, stop}
    const n = last.pushes
    bench.figures.push(
      figure(`resident memory after ${n} changing pushes`, 'MB', last.rss_mb, {
        note: `lowest in the last round ${round(last.floor_mb)} MB; all the push rounds on one server; the soak measures 1,000,000`,
      }),
      figure(`restart after SIGKILL at ${n} pushes -> /v1/health`, 'ms', kill.ms, {
        note: `${round(kill.disk_mb)} MB data dir`,
      }),
      figure(`restart after a clean stop at ${n} pushes`, 'ms', stop.ms, {note: `${round(stop.disk_mb)} MB data dir`}),
    )
  },
}
