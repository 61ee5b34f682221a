// Changing pushes and identical replays against the bare node:http server and the lean durable push
// (bench/lean-push-server.js), their p99 and CPU, and 10,000 checks against 100.
import {CONNECTIONS, fillPastEventBound, seed} from '../load.js'
import {startHelper} from '../processes.js'
import {figure, round} from '../report.js'
import {roundStats} from '../rounds.js'
import {CHECKS, FEW_CHECKS, SHORT_WARMUP_SECONDS} from '../settings.js'

/** @type {import('../context.js').Group} */
export default {
  name: 'push',
  needs: ['big', 'small', 'big-filled', 'small-filled', 'rounds'],
  async runs(bench, rounds) {
    const [big, small] = [await bench.need('big'), await bench.need('small')]
    const put = {seconds: rounds.runs[0].seconds, cpu: true}
    rounds.runs.push({name: 'replays', url: big.origin, pid: big.pid, stream: bench.sets.big.replays(), ...put})
    // the reference: what a lean durable push reaches in Node, filled past the event bound as tablepay is
    const lean = await startHelper('lean-push-server.js')
    rounds.stoppers.push(() => lean.stop())
    await seed(lean.url, bench.sets.lean)
    await fillPastEventBound(lean.url, bench.sets.lean)
    rounds.runs.push({name: 'lean', url: lean.url, pid: lean.child.pid, stream: bench.sets.lean.changes(), ...put})
    rounds.pids.push(small.pid)
    // as long as the run it is compared with: at the event bound a full collection comes every 2 s or so,
    // and a 2 s run took one or none, which moved its rate by 10 % from round to round
    rounds.runs.push({
      warmup: SHORT_WARMUP_SECONDS,
      name: 'few',
      url: small.origin,
      pid: small.pid,
      stream: bench.sets.small.changes(),
      seconds: put.seconds,
    })
  },
  async run(bench) {
    const rounds = await bench.need('rounds')
    const {rate, p99, cpuUs, mainCpuUs, loaderCpuUs, ratio, p99Ratio} = roundStats(rounds)
    const {rssMb} = await bench.need('seeded')
    bench.figures.push(
      figure(`resident memory with ${CHECKS} checks`, 'MB', rssMb, {at_most: 250}),
      figure(
        `changing pushes, ${CHECKS} checks, ${CONNECTIONS} connections`,
        'req/s',
        rate('changing'),
        ratio('changing', 'baseline'),
      ),
      figure('changing pushes p99 latency', 'ms', p99('changing')),
      figure(
        `identical replays, ${CHECKS} checks`,
        'req/s',
        rate('replays'),
        ratio('replays', 'baseline', {at_least: 0.9}),
      ),
      figure(
        `changing pushes at ${CHECKS} vs at ${FEW_CHECKS} checks`,
        'req/s',
        rate('changing'),
        ratio('changing', 'few', {at_least: 0.9}),
      ),
      figure('server CPU per changing push', 'µs', cpuUs('changing'), {
        note: `bare node:http: ${round(cpuUs('baseline'))} µs per PUT; all of the process's threads, compactions included`,
      }),
      figure('server main-thread CPU per changing push', 'µs', mainCpuUs('changing'), {
        note: `the thread that answers requests, as a CPU profile sees it; bare node:http: ${round(mainCpuUs('baseline'))} µs`,
      }),
      figure('server CPU per request, bare node:http PUT', 'µs', cpuUs('baseline')),
      figure('lean durable push (reference), changing pushes', 'req/s', rate('lean'), {
        ...ratio('lean', 'baseline'),
        note: `bench/lean-push-server.js: a push's essential work without tablepay's machinery; ${round(cpuUs('lean'))} µs of CPU per push`,
      }),
      // the push's targets: what tablepay's machinery costs beyond a push's essential work (docs/benchmarks.md, "Targets")
      figure(
        'tablepay changing pushes vs the lean reference',
        'req/s',
        rate('changing'),
        ratio('changing', 'lean', {at_least: 0.7}),
      ),
      figure('tablepay changing pushes p99 vs the lean reference', 'ms', p99('changing'), {
        ...p99Ratio('changing', 'lean'),
        at_most: 2,
      }),
      figure('load generator CPU per request, bare server runs', 'µs', loaderCpuUs('baseline'), {
        note: 'what the load generator takes from the cores it shares with the server',
      }),
    )
  },
}
