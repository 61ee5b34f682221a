// Changing pushes with the request log on, against the same pushes with `serve --request-log 0`.
import {figure, progress, round} from '../report.js'
import {measureRequestLog, REQUEST_LOG_CHECKS} from '../request-log.js'
import {PUSH_RUNS, RUN_SECONDS, WARMUP_SECONDS} from '../settings.js'
import {median} from '../stats.js'

/** @type {import('../context.js').Group} */
export default {
  name: 'request-log',
  needs: [],
  async run(bench) {
    const options = {rounds: PUSH_RUNS, seconds: RUN_SECONDS, warmup: WARMUP_SECONDS, progress}
    const log = await measureRequestLog(bench.root, options)
    bench.results.request_log_ratios = log.ratios.map((r) => round(r, 2))
    bench.figures.push(
      figure(`changing pushes with the request log on, ${REQUEST_LOG_CHECKS} checks`, 'req/s', log.on, {
        baseline: log.off,
        ratio: median(log.ratios),
        at_least: 0.9,
        note: 'baseline: the same pushes with serve --request-log 0',
      }),
    )
  },
}
