// 1,000,000 changing pushes on one server, then 250,000 with a webhook endpoint: memory and both restarts.
import {join} from 'node:path'
import {ENDPOINT_SOAK_PUSHES, soak, SOAK_PUSHES} from '../memory.js'
import {startHelper} from '../processes.js'
import {figure, missing, progress, round} from '../report.js'
import {CHECKS} from '../settings.js'

/**
 * Runs a soak on `dir` (with `endpoint`, one webhook endpoint taking every
 * check event) and adds its figures: memory after the last push, and both
 * restarts. The 400 MB bound is the defaults': with an endpoint the memory
 * is shown, not judged (docs/benchmarks.md, "Memory and restart").
 */
async function soakFigures(figures, dir, endpoint) {
  const soaked = await soak(dir, CHECKS, progress, {endpoint})
  const which = endpoint ? 'soak with one webhook endpoint' : 'soak'
  const last = soaked.samples[soaked.samples.length - 1]
  const peak = Math.max(...soaked.samples.map((s) => s.rss_mb))
  const total = endpoint ? ENDPOINT_SOAK_PUSHES : SOAK_PUSHES
  if (soaked.error)
    figures.push(
      missing(`${which} of ${total} changing pushes`, `failed after ${last?.pushes ?? 0} pushes: ${soaked.error}`),
    )
  if (last) {
    figures.push(
      figure(`resident memory after ${last.pushes} changing pushes (${which})`, 'MB', last.rss_mb, {
        at_most: endpoint ? undefined : 400,
        note:
          `lowest in the last run ${round(last.floor_mb)} MB, peak ${round(peak)} MB; ${round(last.disk_mb)} MB data dir` +
          (endpoint ? '; a delivery kept beside each event; the 400 MB bound is for the defaults' : ''),
      }),
    )
  }
  if (soaked.kill) {
    figures.push(
      figure(`restart after SIGKILL at ${last.pushes} pushes (${which})`, 'ms', soaked.kill.ms, {
        at_most: 2000,
        note: `${round(soaked.kill.journal_mb)} MB of journal to replay, filled to near its compaction`,
      }),
      figure(`restart after a clean stop at ${last.pushes} pushes (${which})`, 'ms', soaked.stop.ms, {at_most: 2000}),
    )
  }
  return soaked
}

/** @type {import('../context.js').Group} */
export default {
  name: 'soak',
  needs: [],
  async run(bench) {
    progress(`soak: ${CHECKS} checks, then ${SOAK_PUSHES} changing pushes with wrk (several minutes)`)
    bench.results.soak = await soakFigures(bench.figures, join(bench.root, 'soak'))
    progress(`soak with a webhook endpoint: ${CHECKS} checks, then ${ENDPOINT_SOAK_PUSHES} changing pushes`)
    const receiver = await startHelper('receiver.js')
    try {
      bench.results.soak_endpoint = await soakFigures(
        bench.figures,
        join(bench.root, 'soak-endpoint'),
        `${receiver.url}/hooks`,
      )
    } finally {
      await receiver.stop()
    }
  },
}
