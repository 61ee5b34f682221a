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
    const ratios = {
      changing_vs_reference: (r) => r.one.rps / r.reference.rps,
      cpu_vs_reference: (r) => r.one.cpuUs / r.reference.cpuUs,
      changing_vs_journal: (r) => r.one.rps / r.journal.rps,
      replays_vs_journal: (r) => r.replays[1].rps / r.replays[0].rps,
      gets_vs_journal: (r) => r.gets[1].rps / r.gets[0].rps,
      beside_vs_reference: (r) => r.beside[1].rps / r.beside[0].rps,
      beside_cpu_vs_reference: (r) => r.beside[1].cpuUs / r.beside[0].cpuUs,
      two_vs_one: (r) => both(r) / r.beside[1].rps,
    }
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
      Object.entries(ratios).map(([name, ratio]) => [name, each(rounds, ratio)]),
    )
    bench.results.postgres_deliveries = deliveries.map((d) => ({
      journal: round(d.journal),
      postgres: round(d.postgres),
    }))
    const of = (value) => median(rounds.map(value))
    bench.figures.push(
      figure(
        `changing pushes, PostgreSQL, one instance, ${CHECKS} checks`,
        'req/s',
        of((r) => r.one.rps),
        {
          baseline: of((r) => r.reference.rps),
          ratio: of(ratios.changing_vs_reference),
          at_least: 0.6,
          note: 'baseline: one SQL statement per push (bench/pg-push-server.js), same database, same rounds',
        },
      ),
      figure(
        '  server CPU per changing push, PostgreSQL',
        'µs',
        of((r) => r.one.cpuUs),
        {
          baseline: of((r) => r.reference.cpuUs),
          ratio: of(ratios.cpu_vs_reference),
          at_most: 2.5,
          note: "baseline: the one-statement reference's; the database's own CPU is in neither",
        },
      ),
      figure(
        '  p99, PostgreSQL, one instance',
        'ms',
        of((r) => r.one.p99),
        {
          at_most: 30,
          note: `reference: ${round(
            of((r) => r.reference.p99),
            1,
          )} ms; journal: ${round(
            of((r) => r.journal.p99),
            1,
          )} ms`,
        },
      ),
      figure(
        '  changing pushes, PostgreSQL / journal',
        'req/s',
        of((r) => r.one.rps),
        {
          baseline: of((r) => r.journal.rps),
          ratio: of(ratios.changing_vs_journal),
          note: 'no target: the journal store does no round trip',
        },
      ),
      figure(
        'identical replays, PostgreSQL / journal',
        'req/s',
        of((r) => r.replays[1].rps),
        {
          baseline: of((r) => r.replays[0].rps),
          ratio: of(ratios.replays_vs_journal),
          at_least: 0.5,
        },
      ),
      figure(
        'GETs, PostgreSQL / journal',
        'req/s',
        of((r) => r.gets[1].rps),
        {
          baseline: of((r) => r.gets[0].rps),
          ratio: of(ratios.gets_vs_journal),
          at_least: 0.5,
        },
      ),
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
      figure(
        'changing pushes, PostgreSQL, one instance beside another, idle',
        'req/s',
        of((r) => r.beside[1].rps),
        {
          baseline: of((r) => r.beside[0].rps),
          ratio: of(ratios.beside_vs_reference),
          note: 'baseline: the one-statement reference, same rounds; the instance sends the other its request log notes',
        },
      ),
      figure(
        '  server CPU per changing push, beside another',
        'µs',
        of((r) => r.beside[1].cpuUs),
        {
          baseline: of((r) => r.beside[0].cpuUs),
          ratio: of(ratios.beside_cpu_vs_reference),
        },
      ),
      figure('changing pushes, PostgreSQL, two instances at once', 'req/s', of(both), {
        baseline: of((r) => r.beside[1].rps),
        ratio: of(ratios.two_vs_one),
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
