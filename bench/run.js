// `npm run bench`: measures tablepay against baselines run alongside it in
// the same run, prints a table and writes bench/results.json. One module per
// group of figures (bench/groups/); method and latest figures:
// docs/benchmarks.md.
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import os from 'node:os'
import {join} from 'node:path'
import {BACKLOG, DRAIN_COUNT, FAN_OUT_ENDPOINTS, FAN_OUT_PUSHES} from './backlog.js'
import {Bench} from './context.js'
import backlog from './groups/backlog.js'
import {compare} from './groups/compare.js'
import deliveries from './groups/deliveries.js'
import fanout from './groups/fanout.js'
import get from './groups/get.js'
import memory from './groups/memory.js'
import peers from './groups/peers.js'
import postgres from './groups/postgres.js'
import push from './groups/push.js'
import requestLog from './groups/request-log.js'
import snapshots from './groups/snapshots.js'
import soak from './groups/soak.js'
import startup from './groups/startup.js'
import {CONNECTIONS, loadGenerator} from './load.js'
import {ROOT} from './processes.js'
import {printTable, progress, round} from './report.js'
import * as settings from './settings.js'

/**
 * Every group, in the order they run: the push rounds' groups share one set
 * of rounds (bench/rounds.js), and the phases that start servers of their
 * own come after those rounds' servers are stopped.
 *
 * @type {import('./context.js').Group[]}
 */
const GROUPS = [startup, push, backlog, get, peers, memory, fanout, requestLog, deliveries, postgres, snapshots, soak]

/** The value of `--name value` or `--name=value` in `argv`, if given. */
function option(argv, name) {
  const given = argv.find((a) => a === name || a.startsWith(`${name}=`))
  if (given === undefined) return undefined
  return given.includes('=') ? given.slice(given.indexOf('=') + 1) : (argv[argv.indexOf(given) + 1] ?? '')
}

/**
 * The groups to measure: every group, or `--only a,b`. The soak is in the
 * default run: the 1,000,000 pushes of the memory target are measured, not
 * extrapolated (docs/benchmarks.md, "Memory and restart"). `--compare
 * <commit>` adds another build's changing pushes to the push rounds.
 */
function selection(argv) {
  const names = GROUPS.map((group) => group.name)
  const only = option(argv, '--only')
  const list = only === undefined ? names : only.split(',')
  const unknown = list.filter((g) => !names.includes(g))
  if (unknown.length > 0)
    throw new Error(`bench: unknown figure group ${unknown.join(', ')}; groups: ${names.join(', ')}`)
  const selected = GROUPS.filter((group) => list.includes(group.name))
  const commit = option(argv, '--compare')
  if (commit === '') throw new Error('bench: --compare needs a commit, e.g. --compare HEAD~1')
  if (commit === undefined) return selected
  // right after the last group of the push rounds: their servers are stopped after it
  const at = selected.findLastIndex((group) => group.needs.includes('rounds')) + 1
  return selected.toSpliced(at, 0, compare(commit))
}

/** Every run of the rounds and the per-round ratios, for results.json. */
function runDetails(results) {
  const rounds = results.rounds ?? {}
  const perRound = (name, base) => rounds[base] && rounds[name]?.map((r, i) => round(r.rps / rounds[base][i].rps, 4))
  const details = {
    paired_ratios: {
      changing: perRound('changing', 'baseline'),
      replays: perRound('replays', 'baseline'),
      changing_10000_vs_100: perRound('changing', 'few'),
      lean: perRound('lean', 'baseline'),
      changing_vs_lean: perRound('changing', 'lean'),
      backlog_vs_changing: perRound('backlog', 'changing'),
      get: perRound('GET', 'baseline GET'),
      wiremock_put: perRound('WireMock PUT', 'baseline'),
      wiremock_get: perRound('WireMock GET', 'baseline GET'),
      prism_put: perRound('Prism PUT', 'baseline'),
      json_server_put: perRound('json-server PUT', 'baseline'),
      changing_vs_wiremock_put: perRound('changing', 'WireMock PUT'),
      fan_out_vs_none: results.fan_out_rounds?.map((r) => round(r.fan_out_rps / r.none_rps, 2)),
    },
    runs: Object.fromEntries(
      Object.entries(rounds).map(([name, list]) => [
        name,
        list.map((r) => ({
          rps: round(r.rps),
          p99_ms: r.p99,
          requests: r.requests,
          outcomes: r.outcomes,
          loader_cpu_ms: round(r.loaderCpuMs),
          server_cpu_ms: r.serverCpuMs,
          server_main_cpu_ms: r.serverMainCpuMs,
        })),
      ]),
    ),
  }
  const {rounds: _, ...rest} = results
  return {...details, ...rest}
}

/** How the figures were measured, for results.json. */
const method = () => ({
  runs: settings.RUNS,
  push_runs: settings.PUSH_RUNS,
  backlog: BACKLOG,
  fan_out: {
    rounds: settings.FAN_OUT_ROUNDS,
    endpoints: FAN_OUT_ENDPOINTS,
    pushes: FAN_OUT_PUSHES,
    drained: DRAIN_COUNT,
  },
  run_seconds: settings.RUN_SECONDS,
  peer_run_seconds: settings.PEER_SECONDS,
  warmup_seconds: settings.WARMUP_SECONDS,
  connections: CONNECTIONS,
  // wrk's niceness when BENCH_WRK_NICE set it: its latencies are not comparable with a run's without it
  load_nice: Number(process.env.BENCH_WRK_NICE ?? 0),
  deliveries: settings.DELIVERIES,
  latency_samples: settings.LATENCY_SAMPLES,
  startup_runs: settings.STARTUP_RUNS,
  verify_runs: settings.VERIFY_RUNS,
})

const machine = () => ({
  platform: `${os.platform()} ${os.release()}`,
  cpus: os.cpus().length,
  cpu_model: os.cpus()[0]?.model,
  memory_gb: round(os.totalmem() / 2 ** 30, 1),
  load_average: os.loadavg().map((l) => round(l, 2)),
})

async function main() {
  const started = performance.now()
  const groups = selection(process.argv.slice(2))
  const names = groups.map((group) => group.name)
  const generator = await loadGenerator()
  progress(`figures: ${names.join(', ')}; load generator: ${generator}`)
  const root = await mkdtemp(join(os.tmpdir(), 'tablepay-bench-'))
  const bench = new Bench(root, groups)
  try {
    for (const [i, group] of groups.entries()) {
      for (const need of group.needs) await bench.need(need)
      await group.run(bench)
      // what no later group needs is stopped now, so that its background work weighs on none of them
      await bench.release(groups.slice(i + 1))
    }
    const {figures, results} = bench
    printTable(figures)
    const output = {
      date: new Date().toISOString(),
      node: process.version,
      load_generator: generator,
      groups: names,
      machine: machine(),
      method: method(),
      figures,
      ...runDetails(results),
      all_pass: figures.every((f) => f.pass !== false),
      seconds: round((performance.now() - started) / 1000, 1),
    }
    await writeFile(join(ROOT, 'bench', 'results.json'), JSON.stringify(output, null, 2) + '\n')
    progress(`done in ${output.seconds} s; wrote bench/results.json`)
  } finally {
    await bench.release([])
    await rm(root, {recursive: true, force: true})
  }
}

await main()
