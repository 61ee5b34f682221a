// PostgreSQL: changing pushes against the one-statement reference, replays, GETs and deliveries against the
// journal store, and two instances at once against one, in the same rounds (docs/benchmarks.md, "PostgreSQL").
import os from 'node:os'
import {measurePostgres} from '../postgres.js'
import {figure, progress, round} from '../report.js'
import {CHECKS, PUSH_RUNS, RUN_SECONDS, WARMUP_SECONDS} from '../settings.js'
import {median} from '../stats.js'

/** Each round's figure, rounded, for results.json: the per-round spread of a ratio. */
const each = (rounds, value, digits = 2) => rounds.map((r) => round(value(r), digits))

/** @type {import('../context.js').Group} */
export default {
  name: 'postgres',
  needs: [],
  async run(bench) {
    const options = {checks: CHECKS, rounds: PUSH_RUNS, seconds: RUN_SECONDS, warmup: WARMUP_SECONDS, progress}
    const {rounds, deliveries} = await measurePostgres(bench.root, options)
    const both = (r) => r.two[0].rps + r.two[1].rps
    /** Each paired figure's value and the baseline it is divided by, in the same round. */
    const pairs = {
      changing_vs_reference: [(r) => r.one.rps, (r) => r.reference.rps],
      cpu_vs_reference: [(r) => r.one.cpuUs, (r) => r.reference.cpuUs],
      p99_vs_reference: [(r) => r.one.p99, (r) => r.reference.p99],
      changing_vs_journal: [(r) => r.one.rps, (r) => r.journal.rps],
      replays_vs_journal: [(r) => r.replays[1].rps, (r) => r.replays[0].rps],
      gets_vs_journal: [(r) => r.gets[1].rps, (r) => r.gets[0].rps],
      beside_vs_reference: [(r) => r.beside[1].rps, (r) => r.beside[0].rps],
      beside_cpu_vs_reference: [(r) => r.beside[1].cpuUs, (r) => r.beside[0].cpuUs],
      two_vs_one: [both, (r) => r.beside[1].rps],
    }
    /** @param {keyof typeof pairs} name */
    const ratio = (name) => (r) => pairs[name][0](r) / pairs[name][1](r)
    bench.results.postgres_rounds = rounds.map((r) => ({
      reference_rps: round(r.reference.rps),
      journal_rps: round(r.journal.rps),
      one_instance_rps: round(r.one.rps),
      beside_another_rps: {reference: round(r.beside[0].rps), one: round(r.beside[1].rps)},
      two_instances_rps: r.two.map((run) => round(run.rps)),
      replays_rps: {journal: round(r.replays[0].rps), one: round(r.replays[1].rps)},
      gets_rps: {journal: round(r.gets[0].rps), one: round(r.gets[1].rps)},
      cpu_us: {
        reference: round(r.reference.cpuUs),
        journal: round(r.journal.cpuUs),
        one: round(r.one.cpuUs),
        beside: {reference: round(r.beside[0].cpuUs), one: round(r.beside[1].cpuUs)},
      },
      p99_ms: {
        reference: r.reference.p99,
        journal: r.journal.p99,
        one: r.one.p99,
        beside: r.beside[1].p99,
        two: r.two.map((run) => run.p99),
      },
    }))
    bench.results.postgres_paired_ratios = Object.fromEntries(
      Object.keys(pairs).map((name) => [name, each(rounds, ratio(/** @type {keyof typeof pairs} */ (name)))]),
    )
    bench.results.postgres_deliveries = deliveries.map((d) => ({
      journal: round(d.journal),
      postgres: round(d.postgres),
      cpu_us: {journal: round(d.cpuUs.journal), postgres: round(d.cpuUs.postgres), database: round(d.cpuUs.database)},
    }))
    const of = (value) => median(rounds.map(value))
    /**
     * The figure of a pair: its value, its baseline and their ratio, each the median of the rounds.
     * @param {string} label @param {string} unit @param {keyof typeof pairs} name @param {object} [more]
     */
    const paired = (label, unit, name, more = {}) =>
      figure(label, unit, of(pairs[name][0]), {baseline: of(pairs[name][1]), ratio: of(ratio(name)), ...more})
    bench.figures.push(
      paired(`changing pushes, PostgreSQL, one instance, ${CHECKS} checks`, 'req/s', 'changing_vs_reference', {
        at_least: 0.6,
        note: 'baseline: one SQL statement per push (bench/pg-push-server.js), same database, same rounds',
      }),
      paired('  server CPU per changing push, PostgreSQL', 'µs', 'cpu_vs_reference', {
        at_most: 2.5,
        note: "baseline: the one-statement reference's; the database's own CPU is in neither",
      }),
      figure(
        '  p99, PostgreSQL, one instance',
        'ms',
        of((r) => r.one.p99),
        {
          at_most: 30,
          note: `journal: ${round(
            of((r) => r.journal.p99),
            1,
          )} ms`,
        },
      ),
      paired("  p99, PostgreSQL / the reference's", 'ms', 'p99_vs_reference', {
        note: 'no target: how far the machine moved the tail in the same rounds, against one statement per push',
      }),
      paired('  changing pushes, PostgreSQL / journal', 'req/s', 'changing_vs_journal', {
        note: 'no target: the journal store does no round trip',
      }),
      paired('identical replays, PostgreSQL / journal', 'req/s', 'replays_vs_journal', {at_least: 0.5}),
      paired('GETs, PostgreSQL / journal', 'req/s', 'gets_vs_journal', {at_least: 0.5}),
      figure(
        'deliveries to a loopback receiver, PostgreSQL / journal',
        'per s',
        median(deliveries.map((d) => d.postgres)),
        {
          baseline: median(deliveries.map((d) => d.journal)),
          ratio: median(deliveries.map((d) => d.postgres / d.journal)),
          at_least: 0.8,
        },
      ),
      figure('  server CPU per delivery, PostgreSQL', 'µs', median(deliveries.map((d) => d.cpuUs.postgres)), {
        baseline: median(deliveries.map((d) => d.cpuUs.journal)),
        ratio: median(deliveries.map((d) => d.cpuUs.postgres / d.cpuUs.journal)),
        note: "no target: baseline the journal server's; the database's own CPU is in neither",
      }),
      figure("  PostgreSQL's CPU per delivery", 'µs', median(deliveries.map((d) => d.cpuUs.database)), {
        note: `the instance's sessions, on the ${os.cpus().length} cores the servers and the receiver share`,
      }),
      paired('changing pushes, PostgreSQL, one instance beside another, idle', 'req/s', 'beside_vs_reference', {
        note: 'baseline: the one-statement reference, same rounds; the instance sends the other its request log notes',
      }),
      paired('  server CPU per changing push, beside another', 'µs', 'beside_cpu_vs_reference'),
      paired('changing pushes, PostgreSQL, two instances at once', 'req/s', 'two_vs_one', {
        note: `baseline: one instance beside the other; each of the two under the load one had, on ${os.cpus().length} cores shared with PostgreSQL`,
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
