// `tablepay verify` against bare node, and serve until /v1/health answers: on an empty data dir and on 10,000 checks.
import {readFile} from 'node:fs/promises'
import {join} from 'node:path'
import {ROOT} from '../processes.js'
import {figure, progress} from '../report.js'
import {CHECKS, STARTUP_RUNS, VERIFY_RUNS} from '../settings.js'
import {dataServeStartup, emptyServeStartup, verifyStartup} from '../startup.js'

/** @type {import('../context.js').Group} */
export default {
  name: 'startup',
  needs: [],
  async run(bench) {
    progress(`verify start-up (${VERIFY_RUNS} runs each)`)
    const verify = await verifyStartup(await readFile(join(ROOT, 'fixtures/checks/open.json')), VERIFY_RUNS)
    progress(`serve start-up, empty data dir (${STARTUP_RUNS} runs)`)
    const emptyStart = await emptyServeStartup(STARTUP_RUNS)
    bench.figures.push(
      figure('tablepay verify wall time', 'ms', verify.verify, {baseline: verify.bare, at_most: 1.2}),
      figure('serve start -> /v1/health, empty data dir', 'ms', emptyStart, {at_most: 500}),
    )
    const seeded = await bench.need('seeded')
    progress(`serve start-up with ${CHECKS} checks (${STARTUP_RUNS} runs)`)
    seeded.startMs = await dataServeStartup(seeded.dir, STARTUP_RUNS)
    bench.figures.push(
      figure(`serve start -> /v1/health, ${CHECKS} checks`, 'ms', seeded.startMs, {
        note: 'no target; what a user can expect with data',
      }),
    )
  },
}
