// Changing pushes whose events go to 100 endpoints, against the same server's pushes without endpoints, and how
// fast the backlog they leave drains.
import {rm} from 'node:fs/promises'
import {join} from 'node:path'
import {DRAIN_COUNT, FAN_OUT_ENDPOINTS, FAN_OUT_PUSHES, fanOutRound, seedFanOut, warmDeliveries} from '../backlog.js'
import {load} from '../load.js'
import {quiet, startHelper, startServe} from '../processes.js'
import {figure, progress, round} from '../report.js'
import {FAN_OUT_ROUNDS, FEW_CHECKS} from '../settings.js'
import {median} from '../stats.js'

/**
 * Each round, on a fresh server holding 100 checks: FAN_OUT_PUSHES changing
 * pushes, each delivered to one endpoint, to warm it up (not measured), the same without endpoints (the
 * baseline), then with FAN_OUT_ENDPOINTS endpoints taking every event, then
 * how fast the backlog drains. Both runs are of one warm process: a fresh
 * server's first pushes run before the JIT has compiled the push path.
 */
async function measureFanOut(root) {
  const receiver = await startHelper('receiver.js')
  const rounds = []
  try {
    for (let round = 1; round <= FAN_OUT_ROUNDS; round++) {
      progress(
        `fan-out ${round}/${FAN_OUT_ROUNDS} (${FAN_OUT_PUSHES} pushes delivered to one endpoint to warm up, ${FAN_OUT_PUSHES} without endpoints, then to ${FAN_OUT_ENDPOINTS} endpoints, then ${DRAIN_COUNT} deliveries drained)`,
      )
      const dir = join(root, `fan-out-${round}`)
      const serve = await startServe(dir)
      try {
        const set = await seedFanOut(serve, FEW_CHECKS, round)
        await warmDeliveries(serve, receiver, set)
        await quiet([serve.pid])
        const none = await load(serve.origin, set.changes(), {amount: FAN_OUT_PUSHES})
        await quiet([serve.pid])
        const {pushes, drain} = await fanOutRound(serve, receiver, set)
        rounds.push({none: none.rps, pushes: pushes.rps, p99: pushes.p99, drain})
      } finally {
        // a clean stop would compact hundreds of thousands of deliveries: not what is measured
        await serve.kill()
        await rm(dir, {recursive: true, force: true})
      }
    }
  } finally {
    await receiver.stop()
  }
  return rounds
}

/** @type {import('../context.js').Group} */
export default {
  name: 'fanout',
  needs: [],
  async run(bench) {
    const fanOut = await measureFanOut(bench.root)
    bench.results.fan_out_rounds = fanOut.map((r) => ({
      none_rps: round(r.none),
      fan_out_rps: round(r.pushes),
      fan_out_p99_ms: r.p99,
      drain_per_s: round(r.drain),
    }))
    bench.figures.push(
      figure(
        `changing pushes, ${FAN_OUT_ENDPOINTS} endpoints for every type`,
        'req/s',
        median(fanOut.map((r) => r.pushes)),
        {
          baseline: median(fanOut.map((r) => r.none)),
          ratio: median(fanOut.map((r) => r.pushes / r.none)),
          at_least: 0.5,
          note: `baseline: the same server's pushes without endpoints, just before; ${FAN_OUT_PUSHES} pushes a round`,
        },
      ),
      figure(`backlog drain, ${FAN_OUT_ENDPOINTS} endpoints`, 'per s', median(fanOut.map((r) => r.drain)), {
        at_least: 1500,
        note: `${DRAIN_COUNT} deliveries of the backlog the fan-out pushes left`,
      }),
    )
  },
}
