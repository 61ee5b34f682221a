// GET of a check by its external id against the bare node:http server's GET.
import {figure, round} from '../report.js'
import {roundStats} from '../rounds.js'
import {CHECKS, SHORT_SECONDS, SHORT_WARMUP_SECONDS} from '../settings.js'

/**
 * The GET runs, which the peers' figures read too (the rounds keep one run of a name).
 *
 * @type {import('../context.js').Group['runs']}
 */
export async function getRuns(bench, rounds) {
  const big = await bench.need('big')
  const [baseline] = rounds.runs
  const get = {warmup: SHORT_WARMUP_SECONDS, seconds: SHORT_SECONDS, cpu: true}
  rounds.runs.push(
    {name: 'baseline GET', url: baseline.url, pid: baseline.pid, stream: bench.sets.baseline.gets(), ...get},
    {name: 'GET', url: big.origin, pid: big.pid, stream: bench.sets.big.gets(), ...get},
  )
}

/** The GET figures, which the peers' group shows when this one was not selected. */
export function getFigures(rounds) {
  const {rate, cpuUs, ratio} = roundStats(rounds)
  return [
    figure(`GET of a check, ${CHECKS} checks`, 'req/s', rate('GET'), ratio('GET', 'baseline GET', {at_least: 0.8})),
    figure('server CPU per GET of a check', 'µs', cpuUs('GET'), {
      note: `bare node:http: ${round(cpuUs('baseline GET'))} µs per GET`,
    }),
  ]
}

/** @type {import('../context.js').Group} */
export default {
  name: 'get',
  needs: ['big', 'big-filled', 'rounds'],
  runs: getRuns,
  async run(bench) {
    bench.figures.push(...getFigures(await bench.need('rounds')))
  },
}
