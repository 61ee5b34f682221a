// The paired rounds: several servers' runs, one after the other in each
// round, so that each figure is a ratio to a run of the same round
// (docs/benchmarks.md, "Method").
import {load} from './load.js'
import {cpuMs, quiet} from './processes.js'
import {progress} from './report.js'
import {PUSH_RUNS, WARMUP_SECONDS} from './settings.js'
import {median} from './stats.js'

/**
 * @typedef {{name: string, url: string, pid: number, stream: import('./load.js').Stream, seconds: number, warmup?: number, cpu?: boolean, timeout?: number, swapsWith?: string}} Run
 * @typedef {import('./load.js').LoadResult & {serverCpuMs?: number, serverMainCpuMs?: number}} RunResult
 */

/** The runs' order in a round, whichever group added them; the peers' come last. `compared`: bench/groups/compare.js. */
const ORDER = ['baseline', 'replays', 'changing', 'compared', 'lean', 'few', 'backlog', 'baseline GET', 'GET']

/** @param {Run[]} runs */
export const inOrder = (runs) => {
  const rank = (run) => (ORDER.includes(run.name) ? ORDER.indexOf(run.name) : ORDER.length)
  return [...runs].sort((a, b) => rank(a) - rank(b))
}

/**
 * The runs of round `round`: `runs` in order, but in every even round a run
 * with `swapsWith` and the run it names trade places, so neither is always
 * the one that follows the other (a server warmed or a cache filled by the
 * run before).
 *
 * @param {Run[]} runs
 * @param {number} round
 */
export function roundOrder(runs, round) {
  if (round % 2 === 1) return runs
  const order = [...runs]
  for (const run of runs) {
    const [mine, theirs] = [order.indexOf(run), order.findIndex((other) => other.name === run.swapsWith)]
    if (run.swapsWith && theirs !== -1) [order[mine], order[theirs]] = [order[theirs], order[mine]]
  }
  return order
}

/**
 * PUSH_RUNS rounds of `runs`, in order (`roundOrder`), after a warm-up run of each server
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
export async function measureRounds(runs, pids, afterRound) {
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
    const order = roundOrder(runs, round)
    progress(`round ${round}/${PUSH_RUNS}: ${order.map((r) => `${r.name} ${r.seconds} s`).join(', ')}`)
    for (const run of order) {
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
 * What the figures read of the rounds: each run's median rate, p99 and CPU
 * per request, and its ratio to the run it is compared with in the same
 * round (the median of the per-round ratios).
 *
 * @param {Record<string, RunResult[]>} rounds
 */
export function roundStats(rounds) {
  const rate = (name) => median(rounds[name].map((r) => r.rps))
  const paired = (name, base) => median(rounds[name].map((r, i) => r.rps / rounds[base][i].rps))
  return {
    rate,
    p99: (name) => median(rounds[name].map((r) => r.p99)),
    cpuUs: (name) => median(rounds[name].map((r) => (r.serverCpuMs * 1000) / r.requests)),
    mainCpuUs: (name) => median(rounds[name].map((r) => (r.serverMainCpuMs * 1000) / r.requests)),
    loaderCpuUs: (name) => median(rounds[name].map((r) => (r.loaderCpuMs * 1000) / r.requests)),
    /** A figure's options: the base run's rate as baseline, the paired ratio, and `options`. */
    ratio: (name, base, options) => ({baseline: rate(base), ratio: paired(name, base), ...options}),
    /** The same for the p99: the base run's as baseline, the median of the per-round ratios of the p99s. */
    p99Ratio: (name, base) => ({
      baseline: median(rounds[base].map((r) => r.p99)),
      ratio: median(rounds[name].map((r, i) => r.p99 / rounds[base][i].p99)),
    }),
  }
}
