// `npm run bench`: measures tablepay against baselines run alongside it in
// the same run, prints a table and writes bench/results.json. Method and
// latest figures: docs/benchmarks.md.
import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import os from 'node:os'
import {join} from 'node:path'
import {
  BACKLOG,
  buildHungBacklog,
  DRAIN_COUNT,
  FAN_OUT_ENDPOINTS,
  FAN_OUT_PUSHES,
  fanOutRound,
  seedFanOut,
} from './backlog.js'
import {dispatcherRate, fetchRate, firstAttemptLatencies, sampleEventBody} from './deliveries.js'
import {CheckSet, load, seed} from './load.js'
import {quiet, residentMb, ROOT, startHelper, startServe} from './processes.js'
import {measureRequestLog, REQUEST_LOG_CHECKS} from './request-log.js'
import {dataServeStartup, emptyServeStartup, verifyStartup} from './startup.js'
import {median} from './stats.js'

const CHECKS = 10_000
const FEW_CHECKS = 100
const RUNS = 3
const PUSH_RUNS = 5
const RUN_SECONDS = 3
const WARMUP_SECONDS = 2
const DELIVERIES = 2000
const LATENCY_SAMPLES = 40
const LATENCY_WARMUP = 5
const STARTUP_RUNS = 5
const VERIFY_RUNS = 15
const FAN_OUT_ROUNDS = 3

const progress = (text) => process.stderr.write(`bench: ${text}\n`)
const round = (value, digits = 0) => Number(value.toFixed(digits))

/**
 * A figure against its target: `at_least`/`at_most` apply to `ratio` when
 * there is a baseline, else to `value`. `ratio` defaults to value / baseline;
 * paired runs pass the median of their per-round ratios instead.
 *
 * @param {string} name
 * @param {string} unit
 * @param {number} value
 * @param {{baseline?: number, ratio?: number, at_least?: number, at_most?: number, note?: string}} [options]
 */
function figure(name, unit, value, {baseline, ratio: pairedRatio, at_least, at_most, note} = {}) {
  const ratio = pairedRatio ?? (baseline === undefined ? undefined : value / baseline)
  const judged = ratio ?? value
  const target =
    at_least !== undefined
      ? `>= ${at_least}${baseline === undefined ? ` ${unit}` : ''}`
      : at_most !== undefined
        ? `<= ${at_most}${baseline === undefined ? ` ${unit}` : ''}`
        : undefined
  const pass = target === undefined ? undefined : at_least !== undefined ? judged >= at_least : judged <= at_most
  return {
    name,
    unit,
    value: round(value, 1),
    baseline: baseline === undefined ? undefined : round(baseline, 1),
    ratio: ratio === undefined ? undefined : round(ratio, 2),
    target,
    pass,
    note,
  }
}

async function measurePushes({big, small, backlog}, baseline, sets) {
  progress(`warming up (${WARMUP_SECONDS} s each)`)
  await load(baseline.url, () => sets.baseline.next(true), {duration: WARMUP_SECONDS})
  await load(big.origin, () => sets.big.next(true), {duration: WARMUP_SECONDS})
  await load(small.origin, () => sets.small.next(true), {duration: WARMUP_SECONDS})
  await load(backlog.origin, () => sets.backlog.next(true), {duration: WARMUP_SECONDS})
  const runs = {baseline: [], changing: [], replays: [], few: [], backlog: []}
  for (let run = 1; run <= PUSH_RUNS; run++) {
    progress(
      `push runs ${run}/${PUSH_RUNS} (${RUN_SECONDS} s each: baseline, replays, changing, changing at ${FEW_CHECKS}, changing with a backlog)`,
    )
    const measure = async (list, url, next) => {
      await quiet([big.pid, small.pid, backlog.pid])
      list.push(await load(url, next, {duration: RUN_SECONDS}))
    }
    await measure(runs.baseline, baseline.url, () => sets.baseline.next(true))
    await measure(runs.replays, big.origin, () => sets.big.next(false))
    await measure(runs.changing, big.origin, () => sets.big.next(true))
    await measure(runs.few, small.origin, () => sets.small.next(true))
    await measure(runs.backlog, backlog.origin, () => sets.backlog.next(true))
  }
  return runs
}

/**
 * Each round: FAN_OUT_PUSHES changing pushes on the 100-check server (no
 * endpoint), then the same on a fresh server with FAN_OUT_ENDPOINTS
 * endpoints taking every event, then how fast that one's backlog drains.
 */
async function measureFanOut(root, small, sets) {
  const receiver = await startHelper('receiver.js')
  const rounds = []
  try {
    for (let round = 1; round <= FAN_OUT_ROUNDS; round++) {
      progress(
        `fan-out ${round}/${FAN_OUT_ROUNDS} (${FAN_OUT_PUSHES} pushes without endpoints, then to ${FAN_OUT_ENDPOINTS} endpoints, then ${DRAIN_COUNT} deliveries drained)`,
      )
      await quiet([small.pid])
      const none = await load(small.origin, () => sets.small.next(true), {amount: FAN_OUT_PUSHES})
      const dir = join(root, `fan-out-${round}`)
      const serve = await startServe(dir)
      try {
        const set = await seedFanOut(serve, FEW_CHECKS, round)
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

async function measureDeliveries(small) {
  const receiver = await startHelper('receiver.js')
  try {
    const rates = {dispatcher: [], fetch: []}
    const body = await sampleEventBody(small)
    // a fresh server's first run of attempts sends at about half the rate of later ones (connections, JIT): not measured
    await dispatcherRate(small, receiver, DELIVERIES, 'warm-up')
    for (let run = 1; run <= RUNS; run++) {
      progress(`deliveries ${run}/${RUNS} (${DELIVERIES} each)`)
      await quiet([small.pid])
      rates.dispatcher.push(await dispatcherRate(small, receiver, DELIVERIES, run))
      await quiet([small.pid])
      rates.fetch.push(await fetchRate(receiver, body, DELIVERIES))
    }
    progress('first-attempt latency')
    await quiet([small.pid])
    const latencies = (await firstAttemptLatencies(small, LATENCY_WARMUP + LATENCY_SAMPLES)).slice(LATENCY_WARMUP)
    return {dispatcher: median(rates.dispatcher), fetch: median(rates.fetch), latency: median(latencies), runs: rates}
  } finally {
    await receiver.stop()
  }
}

function printTable(figures) {
  const rows = figures.map((f) => [
    f.name,
    `${f.value} ${f.unit}`,
    f.baseline === undefined ? '' : `${f.baseline} ${f.unit}`,
    f.ratio === undefined ? '' : `${f.ratio}`,
    f.target ?? '',
    f.pass === undefined ? '' : f.pass ? 'pass' : 'FAIL',
  ])
  const header = ['figure', 'value', 'baseline', 'ratio', 'target', '']
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)))
  const line = (cells) =>
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd()
  console.log([line(header), ...rows.map(line)].join('\n'))
}

/** The request log's figure: log on against log off, paired by round. */
async function requestLogFigure(root) {
  const log = await measureRequestLog(root, {
    rounds: PUSH_RUNS,
    seconds: RUN_SECONDS,
    warmup: WARMUP_SECONDS,
    progress,
  })
  const result = figure(`changing pushes with the request log on, ${REQUEST_LOG_CHECKS} checks`, 'req/s', log.on, {
    baseline: log.off,
    ratio: median(log.ratios),
    at_least: 0.9,
    note: 'baseline: the same pushes with serve --request-log 0',
  })
  return {figure: result, ratios: log.ratios.map((r) => round(r, 2))}
}

/** `BENCH_ONLY=request-log npm run bench`: that figure alone (about 40 s), printed and not written to results.json. */
async function only(name) {
  if (name !== 'request-log') throw new Error(`BENCH_ONLY: no figure "${name}"; the one that runs alone is request-log`)
  const root = await mkdtemp(join(os.tmpdir(), 'tablepay-bench-'))
  try {
    const log = await requestLogFigure(root)
    printTable([log.figure])
    progress(`paired ratios: ${log.ratios.join(', ')}`)
  } finally {
    await rm(root, {recursive: true, force: true})
  }
}

async function main() {
  const started = performance.now()
  const root = await mkdtemp(join(os.tmpdir(), 'tablepay-bench-'))
  const payload = await readFile(join(ROOT, 'fixtures/checks/open.json'))
  const stoppers = []
  try {
    progress(`verify start-up (${VERIFY_RUNS} runs each)`)
    const verify = await verifyStartup(payload, VERIFY_RUNS)
    progress(`serve start-up, empty data dir (${STARTUP_RUNS} runs)`)
    const emptyStart = await emptyServeStartup(STARTUP_RUNS)

    const sets = {
      big: new CheckSet('chk-', CHECKS),
      baseline: new CheckSet('chk-', CHECKS),
      small: new CheckSet('few-', FEW_CHECKS),
    }
    const bigDir = join(root, 'big')
    progress(`seeding ${CHECKS} checks`)
    let big = await startServe(bigDir)
    await seed(big.origin, sets.big)
    const seededRss = residentMb(big.pid)
    await big.stop()
    progress(`serve start-up with ${CHECKS} checks (${STARTUP_RUNS} runs)`)
    const dataStart = await dataServeStartup(bigDir, STARTUP_RUNS)
    big = await startServe(bigDir)
    stoppers.push(() => big.stop())
    const small = await startServe(join(root, 'small'))
    stoppers.push(() => small.stop())
    await seed(small.origin, sets.small)
    const baseline = await startHelper('baseline-server.js')
    stoppers.push(() => baseline.stop())
    const hung = await startHelper('receiver.js')
    stoppers.push(() => hung.stop())
    sets.backlog = new CheckSet('chk-', CHECKS)
    const backlog = await startServe(join(root, 'backlog'))
    stoppers.push(() => backlog.kill())
    progress(`a backlog: ${CHECKS} checks, then ${BACKLOG} pushes that each owe a hung receiver a delivery`)
    await seed(backlog.origin, sets.backlog)
    await buildHungBacklog(backlog, hung, sets.backlog)

    const runs = await measurePushes({big, small, backlog}, baseline, sets)
    const loadedRss = residentMb(big.pid)
    const fanOut = await measureFanOut(root, small, sets)
    const deliveries = await measureDeliveries(small)
    const requestLog = await requestLogFigure(root)

    const rate = (list) => median(list.map((r) => r.rps))
    // each run against the baseline run of its own round: the machine's speed drifts between rounds, and a ratio of medians would mix them
    const paired = (list, base) => median(list.map((r, i) => r.rps / base[i].rps))
    const outcomes = (list) =>
      list.reduce(
        (sum, r) => Object.entries(r.outcomes).reduce((acc, [k, v]) => ({...acc, [k]: (acc[k] ?? 0) + v}), sum),
        {},
      )
    const figures = [
      figure(`changing pushes, ${CHECKS} checks, ${50} connections`, 'req/s', rate(runs.changing), {
        baseline: rate(runs.baseline),
        ratio: paired(runs.changing, runs.baseline),
        at_least: 0.35,
      }),
      figure('changing pushes p99 latency', 'ms', median(runs.changing.map((r) => r.p99)), {at_most: 30}),
      figure(`identical replays, ${CHECKS} checks`, 'req/s', rate(runs.replays), {
        baseline: rate(runs.baseline),
        ratio: paired(runs.replays, runs.baseline),
        at_least: 0.5,
      }),
      figure(`changing pushes at ${CHECKS} vs at ${FEW_CHECKS} checks`, 'req/s', rate(runs.changing), {
        baseline: rate(runs.few),
        ratio: paired(runs.changing, runs.few),
        at_least: 0.8,
      }),
      figure(`changing pushes, ${BACKLOG}+ deliveries pending to a hung receiver`, 'req/s', rate(runs.backlog), {
        baseline: rate(runs.changing),
        ratio: paired(runs.backlog, runs.changing),
        at_least: 0.8,
        note: 'baseline: the same pushes on a server without endpoints',
      }),
      figure('changing pushes p99 with that backlog', 'ms', median(runs.backlog.map((r) => r.p99)), {at_most: 30}),
      figure(
        `changing pushes, ${FAN_OUT_ENDPOINTS} endpoints for every type`,
        'req/s',
        median(fanOut.map((r) => r.pushes)),
        {
          baseline: median(fanOut.map((r) => r.none)),
          ratio: median(fanOut.map((r) => r.pushes / r.none)),
          at_least: 0.5,
          note: `baseline: the same pushes without endpoints; ${FAN_OUT_PUSHES} pushes a round`,
        },
      ),
      figure(`backlog drain, ${FAN_OUT_ENDPOINTS} endpoints`, 'per s', median(fanOut.map((r) => r.drain)), {
        at_least: 1500,
        note: `${DRAIN_COUNT} deliveries of the backlog the fan-out pushes left`,
      }),
      figure('deliveries to a loopback receiver', 'per s', deliveries.dispatcher, {
        baseline: deliveries.fetch,
        at_least: 0.5,
      }),
      figure('push answered -> first attempt arrives, p50', 'ms', deliveries.latency, {at_most: 50}),
      requestLog.figure,
      figure('tablepay verify wall time', 'ms', verify.verify, {baseline: verify.bare, at_most: 1.5}),
      figure('serve start -> /v1/health, empty data dir', 'ms', emptyStart, {at_most: 700}),
      figure(`serve start -> /v1/health, ${CHECKS} checks`, 'ms', dataStart, {
        note: 'no target; what a user can expect with data',
      }),
      figure(`resident memory with ${CHECKS} checks`, 'MB', seededRss, {at_most: 250}),
      figure('resident memory after the push runs', 'MB', loadedRss, {
        note: `no target; holds every event the runs created`,
      }),
    ]
    printTable(figures)
    const results = {
      date: new Date().toISOString(),
      node: process.version,
      machine: {
        platform: `${os.platform()} ${os.release()}`,
        cpus: os.cpus().length,
        cpu_model: os.cpus()[0]?.model,
        memory_gb: round(os.totalmem() / 2 ** 30, 1),
        load_average: os.loadavg().map((l) => round(l, 2)),
      },
      method: {
        runs: RUNS,
        push_runs: PUSH_RUNS,
        backlog: BACKLOG,
        fan_out: {rounds: FAN_OUT_ROUNDS, endpoints: FAN_OUT_ENDPOINTS, pushes: FAN_OUT_PUSHES, drained: DRAIN_COUNT},
        run_seconds: RUN_SECONDS,
        warmup_seconds: WARMUP_SECONDS,
        connections: 50,
        deliveries: DELIVERIES,
        latency_samples: LATENCY_SAMPLES,
        startup_runs: STARTUP_RUNS,
        verify_runs: VERIFY_RUNS,
      },
      figures,
      push_outcomes: {
        changing: outcomes(runs.changing),
        replays: outcomes(runs.replays),
        few: outcomes(runs.few),
        backlog: outcomes(runs.backlog),
      },
      paired_ratios: {
        changing: runs.changing.map((r, i) => round(r.rps / runs.baseline[i].rps, 2)),
        replays: runs.replays.map((r, i) => round(r.rps / runs.baseline[i].rps, 2)),
        changing_10000_vs_100: runs.changing.map((r, i) => round(r.rps / runs.few[i].rps, 2)),
        backlog_vs_changing: runs.backlog.map((r, i) => round(r.rps / runs.changing[i].rps, 2)),
        fan_out_vs_none: fanOut.map((r) => round(r.pushes / r.none, 2)),
        request_log_on_vs_off: requestLog.ratios,
      },
      push_runs: Object.fromEntries(
        Object.entries(runs).map(([name, list]) => [name, list.map((r) => ({rps: round(r.rps), p99_ms: r.p99}))]),
      ),
      fan_out_rounds: fanOut.map((r) => ({
        none_rps: round(r.none),
        fan_out_rps: round(r.pushes),
        fan_out_p99_ms: r.p99,
        drain_per_s: round(r.drain),
      })),
      delivery_runs: {
        dispatcher: deliveries.runs.dispatcher.map((r) => round(r)),
        fetch: deliveries.runs.fetch.map((r) => round(r)),
      },
      all_pass: figures.every((f) => f.pass !== false),
      seconds: round((performance.now() - started) / 1000, 1),
    }
    await writeFile(join(ROOT, 'bench', 'results.json'), JSON.stringify(results, null, 2) + '\n')
    progress(`done in ${results.seconds} s; wrote bench/results.json`)
  } finally {
    for (const stop of stoppers.reverse()) await stop().catch((error) => progress(`stop failed: ${error.message}`))
    await rm(root, {recursive: true, force: true})
  }
}

await (process.env.BENCH_ONLY ? only(process.env.BENCH_ONLY) : main())
