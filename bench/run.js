// `npm run bench`: measures tablepay against baselines run alongside it in
// the same run, prints a table and writes bench/results.json. Method and
// latest figures: docs/benchmarks.md.
import {mkdir, mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
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
  warmDeliveries,
} from './backlog.js'
import {api, dispatcherRate, fetchRate, firstAttemptLatencies, sampleEventBody} from './deliveries.js'
import {changesSent, CheckSet, CONNECTIONS, EVENT_BOUND, fillPastEventBound, load, loadGenerator, seed} from './load.js'
import {ENDPOINT_SOAK_PUSHES, restarts, sample, soak, SOAK_PUSHES, watchFloor} from './memory.js'
import {hasJava, startJsonServer, startPrism, startWireMock} from './peers.js'
import {measurePostgres} from './postgres.js'
import {cpuMs, dirMb, quiet, residentMb, ROOT, startHelper, startServe} from './processes.js'
import {measureRequestLog, REQUEST_LOG_CHECKS} from './request-log.js'
import {dataServeStartup, emptyServeStartup, verifyStartup} from './startup.js'
import {median} from './stats.js'

const CHECKS = 10_000
const FEW_CHECKS = 100
const RUNS = 3
const PUSH_RUNS = Number(process.env.BENCH_ROUNDS) || 5
const RUN_SECONDS = 3
const PEER_SECONDS = 2
/**
 * json-server rewrites its whole 10,000-record file for each PUT (70–115 ms each on the 2-core machine): its
 * 50 connections' first answers took 2.2 s, after a 2 s round had ended, which then counted none.
 */
const JSON_SERVER_SECONDS = 6
/** Runs compared with runs of their own kind (GET with GET, 100 checks with 10,000): shorter, to keep the bench under 4 minutes. */
const SHORT_SECONDS = 2
/** The JVM compiles WireMock's hot path for several seconds: a longer warm-up. */
const JVM_WARMUP_SECONDS = 5
/** A server already warmed by another stream, or a second stream of a warm one. */
const SHORT_WARMUP_SECONDS = 1
const WARMUP_SECONDS = 2
const DELIVERIES = 2000
const LATENCY_SAMPLES = 40
const LATENCY_WARMUP = 5
const STARTUP_RUNS = 5
const VERIFY_RUNS = 15
const FAN_OUT_ROUNDS = 3

const begun = performance.now()
// the elapsed time on each line shows where a run's minutes go
const progress = (text) =>
  process.stderr.write(`bench [${Math.round((performance.now() - begun) / 1000)} s]: ${text}\n`)
const round = (value, digits = 0) => Number(value.toFixed(digits))

/**
 * A ratio as the table shows it: two decimals, two significant digits below
 * 0.1 (json-server's ratio is a few ten-thousandths), and three decimals
 * where two would round a miss onto its target (0.899 is not 0.9).
 *
 * @param {number} ratio
 * @param {number | undefined} at_least
 * @param {number | undefined} at_most
 */
function shownRatio(ratio, at_least, at_most) {
  if (ratio < 0.1) return Number(ratio.toPrecision(2))
  const shown = round(ratio, 2)
  const hidesMiss =
    (at_least !== undefined && ratio < at_least && shown >= at_least) ||
    (at_most !== undefined && ratio > at_most && shown <= at_most)
  return hidesMiss ? round(ratio, 3) : shown
}

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
    ratio: ratio === undefined ? undefined : shownRatio(ratio, at_least, at_most),
    target,
    pass,
    note,
  }
}

/**
 * @typedef {{name: string, url: string, pid: number, stream: import('./load.js').Stream, seconds: number, warmup?: number, cpu?: boolean, timeout?: number}} Run
 * @typedef {import('./load.js').LoadResult & {serverCpuMs?: number, serverMainCpuMs?: number}} RunResult
 */

/**
 * PUSH_RUNS rounds of `runs`, in order, after a warm-up run of each server
 * (`warmup` seconds, WARMUP_SECONDS by default, 0 for none). Before each
 * run every server in `pids`, the one about to be measured and the one
 * measured last have been idle for 250 ms, so that a compaction set off by
 * one run is not billed to the next; a run with `cpu` records its server's
 * CPU time from its start to that idle moment after it (its own
 * compactions included).
 *
 * @param {Run[]} runs
 * @param {number[]} pids
 * @param {(round: number) => void} afterRound
 * @returns {Promise<Record<string, RunResult[]>>}
 */
async function measureRounds(runs, pids, afterRound) {
  const warmed = new Set()
  for (const run of runs) {
    const server = `${run.url} ${run.stream.kind}`
    const seconds = run.warmup ?? WARMUP_SECONDS
    if (warmed.has(server) || run.stream.kind === 'replay' || seconds === 0) continue
    warmed.add(server)
    progress(`warming up ${run.name} (${seconds} s)`)
    await load(run.url, run.stream, {duration: seconds, timeout: run.timeout})
  }
  afterRound(0)
  /** @type {Record<string, RunResult[]>} */
  const results = Object.fromEntries(runs.map((run) => [run.name, []]))
  /** @type {{pid: number, result: RunResult, before: number, beforeMain: number} | undefined} */
  let counting
  const settle = async (pid) => {
    await quiet([...new Set([...pids, pid, ...(counting ? [counting.pid] : [])])])
    if (counting) {
      counting.result.serverCpuMs = cpuMs(counting.pid) - counting.before
      counting.result.serverMainCpuMs = cpuMs(counting.pid, true) - counting.beforeMain
    }
    counting = undefined
  }
  for (let round = 1; round <= PUSH_RUNS; round++) {
    progress(`round ${round}/${PUSH_RUNS}: ${runs.map((r) => `${r.name} ${r.seconds} s`).join(', ')}`)
    for (const run of runs) {
      await settle(run.pid)
      const before = cpuMs(run.pid)
      const beforeMain = cpuMs(run.pid, true)
      /** @type {RunResult} */
      const result = await load(run.url, run.stream, {duration: run.seconds, timeout: run.timeout})
      if (run.cpu) counting = {pid: run.pid, result, before, beforeMain}
      results[run.name].push(result)
    }
    await settle(runs[0].pid)
    afterRound(round)
  }
  return results
}

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

/**
 * Starts the peers (WireMock when Java is there, Prism, json-server) next
 * to `big`, and returns their runs for the rounds. A peer that cannot start
 * is left out with a note in `results.peers_skipped`.
 */
async function startPeers(root, big, sets, stoppers, results) {
  progress('starting the peers: WireMock, Prism, json-server')
  const check = (await api(big.url, 'GET', `/checks/external/${sets.big.prefix}0`)).text
  sets.jsonServer.advance('replay', CHECKS)
  const dir = join(root, 'peers')
  await mkdir(dir, {recursive: true})
  results.peers_skipped = {}
  const starts = {
    WireMock: (await hasJava()) ? startWireMock(check) : Promise.reject(new Error('no Java runtime (java -version)')),
    Prism: startPrism(dir),
    'json-server': startJsonServer(dir, sets.jsonServer.prefix, CHECKS),
  }
  /** @type {Record<string, import('./peers.js').Peer>} */
  const peers = {}
  for (const [name, start] of Object.entries(starts)) {
    try {
      const peer = await start
      peers[name] = peer
      stoppers.push(() => peer.stop())
    } catch (error) {
      results.peers_skipped[name] = error.message.split('\n')[0]
      progress(`skipping ${name}: ${results.peers_skipped[name]}`)
    }
  }
  const peerRun = (name, peer, stream) => ({
    warmup: SHORT_WARMUP_SECONDS,
    name,
    url: peer.url,
    pid: peer.pid,
    stream,
    seconds: PEER_SECONDS,
    timeout: 30,
  })
  /** @type {Run[]} */
  const runs = []
  const {WireMock: wiremock, Prism: prism, 'json-server': jsonServer} = peers
  if (wiremock) {
    runs.push({...peerRun('WireMock PUT', wiremock, sets.wiremock.changes(wiremock.base)), warmup: JVM_WARMUP_SECONDS})
    runs.push(peerRun('WireMock GET', wiremock, sets.wiremock.gets(wiremock.base)))
  }
  if (prism) runs.push(peerRun('Prism PUT', prism, sets.prism.changes(prism.base)))
  // no warm-up for json-server: at tens of requests a second its run is its writes, not its compiler
  if (jsonServer)
    runs.push({
      ...peerRun('json-server PUT', jsonServer, sets.jsonServer.changes(jsonServer.base)),
      warmup: 0,
      seconds: JSON_SERVER_SECONDS,
    })
  return runs
}

/**
 * The figures of the rounds: each run divided by the run it is compared
 * with in the same round, the median of those ratios.
 *
 * @param {Record<string, RunResult[]>} rounds
 */
function pushFigures(rounds, has) {
  const rate = (name) => median(rounds[name].map((r) => r.rps))
  const paired = (name, base) => median(rounds[name].map((r, i) => r.rps / rounds[base][i].rps))
  const p99 = (name) => median(rounds[name].map((r) => r.p99))
  const cpuUs = (name) => median(rounds[name].map((r) => (r.serverCpuMs * 1000) / r.requests))
  const mainCpuUs = (name) => median(rounds[name].map((r) => (r.serverMainCpuMs * 1000) / r.requests))
  const ratio = (name, base, options) => ({baseline: rate(base), ratio: paired(name, base), ...options})
  const figures = []
  if (has('push')) {
    figures.push(
      figure(
        `changing pushes, ${CHECKS} checks, ${CONNECTIONS} connections`,
        'req/s',
        rate('changing'),
        ratio('changing', 'baseline', {at_least: 0.6}),
      ),
      figure('changing pushes p99 latency', 'ms', p99('changing'), {at_most: 10}),
      figure(
        `identical replays, ${CHECKS} checks`,
        'req/s',
        rate('replays'),
        ratio('replays', 'baseline', {at_least: 0.9}),
      ),
      figure(
        `changing pushes at ${CHECKS} vs at ${FEW_CHECKS} checks`,
        'req/s',
        rate('changing'),
        ratio('changing', 'few', {at_least: 0.9}),
      ),
      figure('server CPU per changing push', 'µs', cpuUs('changing'), {
        at_most: 60,
        note: `bare node:http: ${round(cpuUs('baseline'))} µs per PUT; all of the process's threads, compactions included`,
      }),
      figure('server main-thread CPU per changing push', 'µs', mainCpuUs('changing'), {
        note: `the thread that answers requests, as a CPU profile sees it; the target is judged on all threads, above; bare node:http: ${round(mainCpuUs('baseline'))} µs`,
      }),
      figure('server CPU per request, bare node:http PUT', 'µs', cpuUs('baseline')),
      figure('lean durable push (reference), changing pushes', 'req/s', rate('lean'), {
        ...ratio('lean', 'baseline'),
        note: `bench/lean-push-server.js: a push's essential work without tablepay's machinery; ${round(cpuUs('lean'))} µs of CPU per push`,
      }),
      figure('tablepay changing pushes vs the lean reference', 'req/s', rate('changing'), ratio('changing', 'lean')),
      figure(
        'load generator CPU per request, bare server runs',
        'µs',
        median(rounds.baseline.map((r) => (r.loaderCpuMs * 1000) / r.requests)),
        {note: 'what the load generator takes from the cores it shares with the server'},
      ),
    )
  }
  if (rounds.backlog) {
    figures.push(
      figure(
        `changing pushes, ${BACKLOG}+ deliveries pending to a hung receiver`,
        'req/s',
        rate('backlog'),
        ratio('backlog', 'changing', {
          at_least: 0.8,
          note: 'baseline: the same pushes on a server without endpoints',
        }),
      ),
      figure('changing pushes p99 with that backlog', 'ms', p99('backlog'), {at_most: 30}),
    )
  }
  if (rounds.GET) {
    figures.push(
      figure(`GET of a check, ${CHECKS} checks`, 'req/s', rate('GET'), ratio('GET', 'baseline GET', {at_least: 0.8})),
      figure('server CPU per GET of a check', 'µs', cpuUs('GET'), {
        note: `bare node:http: ${round(cpuUs('baseline GET'))} µs per GET`,
      }),
    )
  }
  if (has('peers')) {
    const peers = [
      ['WireMock PUT', 'WireMock stub PUT', 'one static stub answer: no state, no disk, no events, no validation'],
      ['WireMock GET', 'WireMock stub GET', 'the same stub'],
      [
        'Prism PUT',
        'Prism mock PUT',
        'validates the request against the OpenAPI document, answers its example: no state, no disk, no events',
      ],
      [
        'json-server PUT',
        'json-server v1 PUT',
        'keeps the body and rewrites its whole JSON file: no validation, no events',
      ],
    ]
    for (const [run, name, note] of peers) {
      if (!rounds[run]) continue
      figures.push(
        figure(name, 'req/s', rate(run), ratio(run, run.endsWith('GET') ? 'baseline GET' : 'baseline', {note})),
      )
    }
    if (rounds['WireMock PUT']) {
      figures.push(
        figure(
          'tablepay changing PUT vs WireMock stub PUT',
          'req/s',
          rate('changing'),
          ratio('changing', 'WireMock PUT', {at_least: 0.7}),
        ),
        figure('tablepay GET vs WireMock stub GET', 'req/s', rate('GET'), ratio('GET', 'WireMock GET')),
      )
    }
  }
  return figures
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

const GROUPS = [
  'startup',
  'push',
  'get',
  'peers',
  'backlog',
  'memory',
  'request-log',
  'fanout',
  'deliveries',
  'postgres',
  'soak',
]

/**
 * The figures to measure: every group, or `--only a,b`. The soak is in the
 * default run: the 1,000,000 pushes of the memory target are measured, not
 * extrapolated (docs/benchmarks.md, "Memory and restart").
 */
function selection(argv) {
  const only = argv.find((a) => a.startsWith('--only'))
  const list = only
    ? (only.includes('=') ? only.slice(only.indexOf('=') + 1) : (argv[argv.indexOf(only) + 1] ?? '')).split(',')
    : GROUPS
  const unknown = list.filter((g) => !GROUPS.includes(g))
  if (unknown.length > 0)
    throw new Error(`bench: unknown figure group ${unknown.join(', ')}; groups: ${GROUPS.join(', ')}`)
  return new Set(list)
}

/** A figure whose server could not be measured: reported, never passed. */
const missing = (name, note) => ({name, unit: '', value: NaN, target: undefined, pass: undefined, note})

/**
 * Runs a soak on `dir` (with `endpoint`, one webhook endpoint taking every
 * check event) and adds its figures: memory after the last push, and both
 * restarts. The 400 MB bound is the defaults': with an endpoint the memory
 * is shown, not judged (docs/benchmarks.md, "Memory and restart").
 */
async function soakFigures(figures, dir, progress, endpoint) {
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

async function main() {
  const started = performance.now()
  const want = selection(process.argv.slice(2))
  const has = (...groups) => groups.some((g) => want.has(g))
  const generator = await loadGenerator()
  progress(`figures: ${[...want].join(', ')}; load generator: ${generator}`)
  const root = await mkdtemp(join(os.tmpdir(), 'tablepay-bench-'))
  const payload = await readFile(join(ROOT, 'fixtures/checks/open.json'))
  /** @type {(() => Promise<unknown>)[]} */
  const stoppers = []
  /** @type {(() => Promise<unknown>)[]} */
  const lateStoppers = []
  const figures = []
  const results = {}
  try {
    if (has('startup')) {
      progress(`verify start-up (${VERIFY_RUNS} runs each)`)
      const verify = await verifyStartup(payload, VERIFY_RUNS)
      progress(`serve start-up, empty data dir (${STARTUP_RUNS} runs)`)
      const emptyStart = await emptyServeStartup(STARTUP_RUNS)
      figures.push(
        figure('tablepay verify wall time', 'ms', verify.verify, {baseline: verify.bare, at_most: 1.2}),
        figure('serve start -> /v1/health, empty data dir', 'ms', emptyStart, {at_most: 500}),
      )
    }

    const sets = {
      big: new CheckSet('chk-', CHECKS),
      baseline: new CheckSet('chk-', CHECKS),
      small: new CheckSet('few-', FEW_CHECKS),
      lean: new CheckSet('chk-', CHECKS),
      wiremock: new CheckSet('chk-', CHECKS),
      prism: new CheckSet('chk-', CHECKS),
      jsonServer: new CheckSet('chk-', CHECKS),
    }
    const bigDir = join(root, 'big')
    const needsBig = has('startup', 'push', 'get', 'peers', 'backlog', 'memory')
    const needsSmall = has('push', 'deliveries')
    /** @type {Awaited<ReturnType<typeof startServe>> | undefined} */
    let big
    let seeded
    if (needsBig) {
      progress(`seeding ${CHECKS} checks`)
      big = await startServe(bigDir)
      await seed(big.origin, sets.big)
      const seededRss = residentMb(big.pid)
      await big.stop()
      if (has('push')) figures.push(figure(`resident memory with ${CHECKS} checks`, 'MB', seededRss, {at_most: 250}))
      const seededMb = dirMb(bigDir)
      let seededStart
      if (has('startup')) {
        progress(`serve start-up with ${CHECKS} checks (${STARTUP_RUNS} runs)`)
        seededStart = await dataServeStartup(bigDir, STARTUP_RUNS)
        figures.push(
          figure(`serve start -> /v1/health, ${CHECKS} checks`, 'ms', seededStart, {
            note: 'no target; what a user can expect with data',
          }),
        )
      }
      big = await startServe(bigDir)
      // the restart figures' first point: a start on the seeded data dir
      seeded = {ms: seededStart ?? big.startMs, disk_mb: seededMb}
      const bigServer = big
      stoppers.push(() => bigServer.kill())
    }
    /** @type {Awaited<ReturnType<typeof startServe>> | undefined} */
    let small
    if (needsSmall) {
      small = await startServe(join(root, 'small'))
      const smallServer = small
      // the deliveries' phase sends from it: stopped at the end, with what the later phases start
      lateStoppers.push(() => smallServer.stop())
      await seed(small.origin, sets.small)
    }

    if (big && has('push', 'get', 'peers', 'memory')) {
      progress(`filling the servers past the event bound (${EVENT_BOUND} events, serve's default --max-events)`)
      await fillPastEventBound(big.origin, sets.big)
      if (small && has('push')) await fillPastEventBound(small.origin, sets.small)
    }

    /** @type {Run[]} */
    const runs = []
    const pids = []
    let afterRound = (/** @type {number} */ round) => void round
    if (big) {
      const baseline = await startHelper('baseline-server.js')
      stoppers.push(() => baseline.stop())
      await seed(baseline.url, sets.baseline)
      const put = RUN_SECONDS
      pids.push(big.pid)
      runs.push({
        name: 'baseline',
        url: baseline.url,
        pid: baseline.child.pid,
        stream: sets.baseline.changes(),
        seconds: put,
        cpu: true,
      })
      if (has('push'))
        runs.push({name: 'replays', url: big.origin, pid: big.pid, stream: sets.big.replays(), seconds: put, cpu: true})
      runs.push({name: 'changing', url: big.origin, pid: big.pid, stream: sets.big.changes(), seconds: put, cpu: true})
      if (has('push')) {
        // the reference: what a lean durable push reaches in Node, filled past the event bound as tablepay is
        const lean = await startHelper('lean-push-server.js')
        stoppers.push(() => lean.stop())
        await seed(lean.url, sets.lean)
        await fillPastEventBound(lean.url, sets.lean)
        runs.push({
          name: 'lean',
          url: lean.url,
          pid: lean.child.pid,
          stream: sets.lean.changes(),
          seconds: put,
          cpu: true,
        })
      }
      if (has('push') && small) {
        pids.push(small.pid)
        // as long as the run it is compared with: at the event bound a full collection comes every 2 s or so,
        // and a 2 s run took one or none, which moved its rate by 10 % from round to round (docs/benchmarks.md)
        runs.push({
          warmup: SHORT_WARMUP_SECONDS,
          name: 'few',
          url: small.origin,
          pid: small.pid,
          stream: sets.small.changes(),
          seconds: put,
        })
      }
      if (has('backlog')) {
        const hung = await startHelper('receiver.js')
        stoppers.push(() => hung.stop())
        sets.backlog = new CheckSet('chk-', CHECKS)
        const backlog = await startServe(join(root, 'backlog'))
        stoppers.push(() => backlog.kill())
        progress(`a backlog: ${CHECKS} checks, then ${BACKLOG} pushes that each owe a hung receiver a delivery`)
        await seed(backlog.origin, sets.backlog)
        await buildHungBacklog(backlog, hung, sets.backlog)
        pids.push(backlog.pid)
        // as long as the run it is compared with, as the 100 checks' is: in 2 s runs the figure's rounds split
        // into two groups, around 0.72 and 1.05 (docs/benchmarks.md, "Method")
        runs.push({
          warmup: SHORT_WARMUP_SECONDS,
          name: 'backlog',
          url: backlog.origin,
          pid: backlog.pid,
          stream: sets.backlog.changes(),
          seconds: put,
        })
      }
      if (has('get', 'peers')) {
        runs.push(
          {
            warmup: SHORT_WARMUP_SECONDS,
            name: 'baseline GET',
            url: baseline.url,
            pid: baseline.child.pid,
            stream: sets.baseline.gets(),
            seconds: SHORT_SECONDS,
            cpu: true,
          },
          {
            warmup: SHORT_WARMUP_SECONDS,
            name: 'GET',
            url: big.origin,
            pid: big.pid,
            stream: sets.big.gets(),
            seconds: SHORT_SECONDS,
            cpu: true,
          },
        )
      }
      if (has('peers')) runs.push(...(await startPeers(root, big, sets, stoppers, results)))
      if (has('memory')) {
        results.memory_samples = []
        const floor = watchFloor(big.pid)
        stoppers.push(async () => floor.stop())
        afterRound = () => results.memory_samples.push(sample(big, bigDir, changesSent(sets.big), floor.take()))
      }
    }
    if (runs.length > 0) {
      results.rounds = {}
      const measured = await measureRounds(runs, pids, (round) => afterRound(round))
      Object.assign(results.rounds, measured)
      figures.push(...pushFigures(measured, has))
    }
    if (has('memory') && big) {
      progress('restarts after the push rounds (SIGKILL, then a clean stop)')
      const samples = results.memory_samples
      const last = samples[samples.length - 1]
      const {kill, stop, server} = await restarts(big, bigDir)
      stoppers.push(() => server.kill())
      results.memory = {seeded, kill, stop}
      const n = last.pushes
      figures.push(
        figure(`resident memory after ${n} changing pushes`, 'MB', last.rss_mb, {
          note: `lowest in the last round ${round(last.floor_mb)} MB; all the push rounds on one server; the soak measures 1,000,000`,
        }),
        figure(`restart after SIGKILL at ${n} pushes -> /v1/health`, 'ms', kill.ms, {
          note: `${round(kill.disk_mb)} MB data dir`,
        }),
        figure(`restart after a clean stop at ${n} pushes`, 'ms', stop.ms, {
          note: `${round(stop.disk_mb)} MB data dir`,
        }),
      )
    }
    // the push rounds' servers (but the small one), peers and hung receiver are done with: stopped now, so that
    // their background work (the backlog server's attempts to its hung receiver, WireMock's JVM) weighs on none
    // of the phases after
    await stopAll(stoppers)
    stoppers.push(...lateStoppers.splice(0))
    if (has('fanout')) {
      const fanOut = await measureFanOut(root)
      results.fan_out_rounds = fanOut.map((r) => ({
        none_rps: round(r.none),
        fan_out_rps: round(r.pushes),
        fan_out_p99_ms: r.p99,
        drain_per_s: round(r.drain),
      }))
      figures.push(
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
    }
    if (has('request-log')) {
      const log = await measureRequestLog(root, {
        rounds: PUSH_RUNS,
        seconds: RUN_SECONDS,
        warmup: WARMUP_SECONDS,
        progress,
      })
      results.request_log_ratios = log.ratios.map((r) => round(r, 2))
      figures.push(
        figure(`changing pushes with the request log on, ${REQUEST_LOG_CHECKS} checks`, 'req/s', log.on, {
          baseline: log.off,
          ratio: median(log.ratios),
          at_least: 0.9,
          note: 'baseline: the same pushes with serve --request-log 0',
        }),
      )
    }
    if (has('deliveries') && small) {
      const deliveries = await measureDeliveries(small)
      results.delivery_runs = {
        dispatcher: deliveries.runs.dispatcher.map((r) => round(r)),
        fetch: deliveries.runs.fetch.map((r) => round(r)),
      }
      figures.push(
        figure('deliveries to a loopback receiver', 'per s', deliveries.dispatcher, {
          baseline: deliveries.fetch,
          at_least: 0.5,
        }),
        figure('push answered -> first attempt arrives, p50', 'ms', deliveries.latency, {at_most: 50}),
      )
    }
    if (has('postgres')) {
      const rounds = await measurePostgres(root, {
        checks: CHECKS,
        rounds: PUSH_RUNS,
        seconds: RUN_SECONDS,
        warmup: WARMUP_SECONDS,
        progress,
      })
      const both = (r) => r.two[0].rps + r.two[1].rps
      results.postgres_rounds = rounds.map((r) => ({
        journal_rps: round(r.journal.rps),
        one_instance_rps: round(r.one.rps),
        two_instances_rps: r.two.map((run) => round(run.rps)),
        p99_ms: {journal: r.journal.p99, one: r.one.p99, two: r.two.map((run) => run.p99)},
      }))
      figures.push(
        figure(
          `changing pushes, PostgreSQL, one instance, ${CHECKS} checks`,
          'req/s',
          median(rounds.map((r) => r.one.rps)),
          {
            baseline: median(rounds.map((r) => r.journal.rps)),
            ratio: median(rounds.map((r) => r.one.rps / r.journal.rps)),
            note: 'baseline: the journal store, same pushes, same rounds; no target (docs/benchmarks.md "PostgreSQL")',
          },
        ),
        figure('  p99, PostgreSQL, one instance', 'ms', median(rounds.map((r) => r.one.p99)), {
          note: `journal: ${round(median(rounds.map((r) => r.journal.p99)), 1)} ms`,
        }),
        figure('changing pushes, PostgreSQL, two instances at once', 'req/s', median(rounds.map(both)), {
          baseline: median(rounds.map((r) => r.one.rps)),
          ratio: median(rounds.map((r) => both(r) / r.one.rps)),
          note: `baseline: one instance; each of the two under the load one had alone, on ${os.cpus().length} cores shared with PostgreSQL`,
        }),
        figure(
          '  p99, PostgreSQL, two instances',
          'ms',
          median(rounds.map((r) => Math.max(r.two[0].p99, r.two[1].p99))),
          {
            note: 'the slower of the two',
          },
        ),
      )
    }
    if (has('soak')) {
      progress(`soak: ${CHECKS} checks, then ${SOAK_PUSHES} changing pushes with wrk (several minutes)`)
      results.soak = await soakFigures(figures, join(root, 'soak'), progress)
      progress(`soak with a webhook endpoint: ${CHECKS} checks, then ${ENDPOINT_SOAK_PUSHES} changing pushes`)
      const receiver = await startHelper('receiver.js')
      try {
        const endpoint = `${receiver.url}/hooks`
        results.soak_endpoint = await soakFigures(figures, join(root, 'soak-endpoint'), progress, endpoint)
      } finally {
        await receiver.stop()
      }
    }

    printTable(figures)
    const output = {
      date: new Date().toISOString(),
      node: process.version,
      load_generator: generator,
      groups: [...want],
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
        peer_run_seconds: PEER_SECONDS,
        warmup_seconds: WARMUP_SECONDS,
        connections: CONNECTIONS,
        deliveries: DELIVERIES,
        latency_samples: LATENCY_SAMPLES,
        startup_runs: STARTUP_RUNS,
        verify_runs: VERIFY_RUNS,
      },
      figures,
      ...runDetails(results),
      all_pass: figures.every((f) => f.pass !== false),
      seconds: round((performance.now() - started) / 1000, 1),
    }
    await writeFile(join(ROOT, 'bench', 'results.json'), JSON.stringify(output, null, 2) + '\n')
    progress(`done in ${output.seconds} s; wrote bench/results.json`)
  } finally {
    await stopAll(stoppers)
    await stopAll(lateStoppers)
    await rm(root, {recursive: true, force: true})
  }
}

/**
 * Stops what `stoppers` started, the last started first, and forgets it.
 *
 * @param {(() => Promise<unknown>)[]} stoppers
 */
async function stopAll(stoppers) {
  for (const stop of stoppers.splice(0).reverse())
    await stop().catch((error) => progress(`stop failed: ${error.message}`))
}

await main()
