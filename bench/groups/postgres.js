// Changing pushes on PostgreSQL, one instance and two at once, against the journal store in the same rounds.
import os from 'node:os'
import {measurePostgres} from '../postgres.js'
import {figure, progress, round} from '../report.js'
import {CHECKS, PUSH_RUNS, RUN_SECONDS, WARMUP_SECONDS} from '../settings.js'
import {median} from '../stats.js'

/** @type {import('../context.js').Group} */
export default {
  name: 'postgres',
  needs: [],
  async run(bench) {
    const options = {checks: CHECKS, rounds: PUSH_RUNS, seconds: RUN_SECONDS, warmup: WARMUP_SECONDS, progress}
    const rounds = await measurePostgres(bench.root, options)
    const both = (r) => r.two[0].rps + r.two[1].rps
    bench.results.postgres_rounds = rounds.map((r) => ({
      journal_rps: round(r.journal.rps),
      one_instance_rps: round(r.one.rps),
      two_instances_rps: r.two.map((run) => round(run.rps)),
      p99_ms: {journal: r.journal.p99, one: r.one.p99, two: r.two.map((run) => run.p99)},
    }))
    const of = (value) => median(rounds.map(value))
    bench.figures.push(
      figure(
        `changing pushes, PostgreSQL, one instance, ${CHECKS} checks`,
        'req/s',
        of((r) => r.one.rps),
        {
          baseline: of((r) => r.journal.rps),
          ratio: of((r) => r.one.rps / r.journal.rps),
          note: 'baseline: the journal store, same pushes, same rounds; no target (docs/benchmarks.md "PostgreSQL")',
        },
      ),
      figure(
        '  p99, PostgreSQL, one instance',
        'ms',
        of((r) => r.one.p99),
        {
          note: `journal: ${round(
            of((r) => r.journal.p99),
            1,
          )} ms`,
        },
      ),
      figure('changing pushes, PostgreSQL, two instances at once', 'req/s', of(both), {
        baseline: of((r) => r.one.rps),
        ratio: of((r) => both(r) / r.one.rps),
        note: `baseline: one instance; each of the two under the load one had alone, on ${os.cpus().length} cores shared with PostgreSQL`,
      }),
      figure(
        '  p99, PostgreSQL, two instances',
        'ms',
        of((r) => Math.max(r.two[0].p99, r.two[1].p99)),
        {
          note: 'the slower of the two',
        },
      ),
    )
  },
}
