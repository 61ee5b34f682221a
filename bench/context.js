// What the groups of figures share: the figures and results so far, the
// check sets, and the servers several groups measure ("needs"), each started
// once, for the first group that needs it, and stopped after the last.
import {join} from 'node:path'
import {CheckSet, EVENT_BOUND, fillPastEventBound, seed} from './load.js'
import {dirMb, residentMb, startHelper, startServe} from './processes.js'
import {progress} from './report.js'
import {inOrder, measureRounds} from './rounds.js'
import {CHECKS, FEW_CHECKS, RUN_SECONDS} from './settings.js'

/**
 * A group of figures (bench/groups/): `--only` selects it by `name`; the
 * bench starts its `needs` first, in order; `runs` adds its runs to the
 * shared push rounds (group `needs` has `rounds`), `run` measures the rest
 * and adds its figures.
 *
 * @typedef {{name: string, needs: string[], runs?: (bench: Bench, rounds: Rounds) => Promise<void>, run: (bench: Bench) => Promise<void>}} Group
 * @typedef {{runs: import('./rounds.js').Run[], pids: number[], stoppers: Stoppers, afterRound: ((round: number) => void)[]}} Rounds
 * @typedef {(() => Promise<unknown>)[]} Stoppers
 */

/** How each need starts (it may start others first), and what stops it. */
const NEEDS = {
  /** The 10,000 checks' data dir, seeded, its server stopped; `startMs` is the start with them. */
  async seeded(bench) {
    progress(`seeding ${CHECKS} checks`)
    const dir = join(bench.root, 'big')
    const server = await startServe(dir)
    await seed(server.origin, bench.sets.big)
    const rssMb = residentMb(server.pid)
    await server.stop()
    return {value: {dir, rssMb, diskMb: dirMb(dir), startMs: undefined}}
  },
  async big(bench) {
    const seeded = await bench.need('seeded')
    const server = await startServe(seeded.dir)
    // the restart figures' first point: a start on the seeded data dir
    seeded.startMs ??= server.startMs
    return {value: server, stop: () => server.kill()}
  },
  async small(bench) {
    const server = await startServe(join(bench.root, 'small'))
    await seed(server.origin, bench.sets.small)
    return {value: server, stop: () => server.stop()}
  },
  async 'big-filled'(bench) {
    progress(`filling ${CHECKS} checks past the event bound (${EVENT_BOUND} events, serve's default --max-events)`)
    await fillPastEventBound((await bench.need('big')).origin, bench.sets.big)
    return {value: true}
  },
  async 'small-filled'(bench) {
    progress(`filling ${FEW_CHECKS} checks past the event bound`)
    await fillPastEventBound((await bench.need('small')).origin, bench.sets.small)
    return {value: true}
  },
  /** The push rounds: the bare server and changing pushes, and the runs of every selected group with `runs`. */
  async rounds(bench) {
    const big = await bench.need('big')
    /** @type {Rounds} */
    const rounds = {runs: [], pids: [big.pid], stoppers: [], afterRound: []}
    const baseline = await startHelper('baseline-server.js')
    rounds.stoppers.push(() => baseline.stop())
    await seed(baseline.url, bench.sets.baseline)
    const put = {seconds: RUN_SECONDS, cpu: true}
    rounds.runs.push(
      {name: 'baseline', url: baseline.url, pid: baseline.child.pid, stream: bench.sets.baseline.changes(), ...put},
      {name: 'changing', url: big.origin, pid: big.pid, stream: bench.sets.big.changes(), ...put},
    )
    for (const group of bench.groups) await group.runs?.(bench, rounds)
    const runs = inOrder(rounds.runs.filter((run, i) => rounds.runs.findIndex((r) => r.name === run.name) === i))
    bench.results.rounds = await measureRounds(runs, rounds.pids, (round) => rounds.afterRound.forEach((f) => f(round)))
    return {value: bench.results.rounds, stop: () => stopAll(rounds.stoppers)}
  },
}

export class Bench {
  figures = []
  results = {}
  sets = {
    big: new CheckSet('chk-', CHECKS),
    baseline: new CheckSet('chk-', CHECKS),
    small: new CheckSet('few-', FEW_CHECKS),
    lean: new CheckSet('chk-', CHECKS),
    wiremock: new CheckSet('chk-', CHECKS),
    prism: new CheckSet('chk-', CHECKS),
    jsonServer: new CheckSet('chk-', CHECKS),
    backlog: new CheckSet('chk-', CHECKS),
  }
  /**
   * What the group running now started: stopped when it ends.
   *
   * @type {Stoppers}
   */
  stoppers = []
  /** @type {Map<string, Promise<{value: any, stop?: () => Promise<unknown>}>>} */
  #started = new Map()

  /**
   * @param {string} root a temp dir for the data dirs, removed at the end
   * @param {Group[]} groups the selected groups, in the order they run
   */
  constructor(root, groups) {
    this.root = root
    this.groups = groups
  }

  /** Whether a group was selected. */
  has(name) {
    return this.groups.some((group) => group.name === name)
  }

  /** The need called `name`, started now if it was not. */
  async need(name) {
    if (!this.#started.has(name)) this.#started.set(name, NEEDS[name](this))
    return (await this.#started.get(name)).value
  }

  /**
   * Stops what the group that ran started, and the servers none of `later` needs, the last started first; what
   * a need did to a data dir (seeded, filled) stays done.
   */
  async release(later) {
    await stopAll(this.stoppers)
    for (const [name, started] of [...this.#started].reverse()) {
      const {stop} = await started
      if (!stop || later.some((group) => group.needs.includes(name))) continue
      this.#started.delete(name)
      await stop().catch((error) => progress(`stop failed: ${error.message}`))
    }
  }
}

/**
 * Stops what `stoppers` started, the last started first, and forgets it.
 *
 * @param {Stoppers} stoppers
 */
export async function stopAll(stoppers) {
  for (const stop of stoppers.splice(0).reverse())
    await stop().catch((error) => progress(`stop failed: ${error.message}`))
}
