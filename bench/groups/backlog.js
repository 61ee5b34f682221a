// Changing pushes while 50,000 deliveries wait for a receiver that never answers.
import {BACKLOG, buildHungBacklog} from '../backlog.js'
import {seed} from '../load.js'
import {startHelper, startServe} from '../processes.js'
import {figure, progress} from '../report.js'
import {roundStats} from '../rounds.js'
import {CHECKS, SHORT_WARMUP_SECONDS} from '../settings.js'
import {join} from 'node:path'

/** @type {import('../context.js').Group} */
export default {
  name: 'backlog',
  needs: ['big', 'rounds'],
  async runs(bench, rounds) {
    const hung = await startHelper('receiver.js')
    rounds.stoppers.push(() => hung.stop())
    const backlog = await startServe(join(bench.root, 'backlog'))
    rounds.stoppers.push(() => backlog.kill())
    progress(`a backlog: ${CHECKS} checks, then ${BACKLOG} pushes that each owe a hung receiver a delivery`)
    await seed(backlog.origin, bench.sets.backlog)
    await buildHungBacklog(backlog, hung, bench.sets.backlog)
    rounds.pids.push(backlog.pid)
    // as long as the run it is compared with, as the 100 checks' is: in 2 s runs the figure's rounds split
    // into two groups, around 0.72 and 1.05 (docs/benchmarks.md, "Method")
    rounds.runs.push({
      warmup: SHORT_WARMUP_SECONDS,
      name: 'backlog',
      url: backlog.origin,
      pid: backlog.pid,
      stream: bench.sets.backlog.changes(),
      seconds: rounds.runs[0].seconds,
    })
  },
  async run(bench) {
    const {rate, p99, ratio} = roundStats(await bench.need('rounds'))
    bench.figures.push(
      figure(
        `changing pushes, ${BACKLOG}+ deliveries pending to a hung receiver`,
        'req/s',
        rate('backlog'),
        ratio('backlog', 'changing', {at_least: 0.8, note: 'baseline: the same pushes on a server without endpoints'}),
      ),
      figure('changing pushes p99 with that backlog', 'ms', p99('backlog'), {at_most: 30}),
    )
  },
}
