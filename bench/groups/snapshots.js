// Snapshots: a save and a restore of 1,000 checks with their events on both stores, and pushes with snapshots saved.
import {figure, progress, round} from '../report.js'
import {PUSH_RUNS, RUN_SECONDS, WARMUP_SECONDS} from '../settings.js'
import {measureSnapshots, SNAPSHOT_CHECKS} from '../snapshots.js'

/** @type {import('../context.js').Group} */
export default {
  name: 'snapshots',
  needs: [],
  async run(bench) {
    const options = {rounds: PUSH_RUNS, seconds: RUN_SECONDS, warmup: WARMUP_SECONDS, progress}
    const measured = await measureSnapshots(bench.root, options)
    const rounds = ({rounds}) => ({
      saves: rounds.saves.map((ms) => round(ms, 1)),
      restores: rounds.restores.map((ms) => round(ms, 1)),
      again: rounds.again.map((ms) => round(ms, 1)),
    })
    bench.results.snapshots = {
      journal_ms: {save: measured.journal.save, restore: measured.journal.restore},
      postgres_ms: {save: measured.postgres.save, restore: measured.postgres.restore, again: measured.postgres.again},
      rounds_ms: {journal: rounds(measured.journal), postgres: rounds(measured.postgres)},
      push_ratios: measured.pushRatios.map((r) => round(r, 2)),
    }
    const account = `${SNAPSHOT_CHECKS} checks, ${2 * SNAPSHOT_CHECKS} events`
    const note = 'median of the rounds; each restore writes the whole account back (after a reset)'
    bench.figures.push(
      figure(`snapshot restore, journal, ${account}`, 'ms', measured.journal.restore, {at_most: 50, note}),
      figure('snapshot save, journal', 'ms', measured.journal.save, {at_most: 100}),
      figure(`snapshot restore, PostgreSQL, ${account}`, 'ms', measured.postgres.restore, {at_most: 250, note}),
      figure('snapshot save, PostgreSQL', 'ms', measured.postgres.save, {at_most: 100}),
      figure('  restore again over the records it put back, PostgreSQL', 'ms', measured.postgres.again, {
        note: 'a suite that restores before each test',
      }),
      figure('changing pushes with 10 snapshots kept / none, journal', 'ratio', measured.pushRatio, {
        at_least: 0.9,
        note: 'two servers filled alike, one keeping 10 snapshots of its account; alternating rounds',
      }),
    )
  },
}
