// `--compare <commit>`: this build's changing pushes against another
// build's, in the same rounds (docs/benchmarks.md, "Before and after").
import {execFileSync} from 'node:child_process'
import {mkdirSync, symlinkSync} from 'node:fs'
import {join} from 'node:path'
import {CheckSet, fillPastEventBound, seed} from '../load.js'
import {ROOT, startServe} from '../processes.js'
import {figure, progress, round} from '../report.js'
import {roundStats} from '../rounds.js'
import {CHECKS} from '../settings.js'

/**
 * The run of the other build in each round: bench/rounds.js puts it right after this build's changing pushes, and
 * right before them every other round.
 */
export const COMPARED = 'compared'

/**
 * `commit`'s tree, built in `dir` with this checkout's node_modules (a
 * commit whose dependencies differ is built against these), and its
 * `bin/run.js`.
 */
function build(commit, dir) {
  mkdirSync(dir)
  execFileSync('sh', ['-c', `git -C "${ROOT}" archive --format=tar "$1" | tar -x -C "${dir}"`, 'archive', commit])
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
  execFileSync('npm', ['run', '-s', 'build'], {cwd: dir, stdio: ['ignore', 'ignore', 'inherit']})
  return join(dir, 'bin', 'run.js')
}

/** `commit`'s short hash, or a bench error that names it. */
function shortSha(commit) {
  const args = ['-C', ROOT, 'rev-parse', '--verify', '--quiet', '--short', `${commit}^{commit}`]
  try {
    return execFileSync('git', args, {encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore']}).trim()
  } catch {
    throw new Error(`bench: --compare ${commit} names no commit of this checkout (try HEAD~1 or a hash from git log)`)
  }
}

/**
 * @param {string} commit what `--compare` named
 * @returns {import('../context.js').Group}
 */
export function compare(commit) {
  const sha = shortSha(commit)
  return {
    name: 'compare',
    needs: ['big', 'big-filled', 'rounds'],
    async runs(bench, rounds) {
      progress(`building ${commit} (${sha})`)
      const bin = build(sha, join(bench.root, 'compared-build'))
      const dir = join(bench.root, 'compared')
      const set = new CheckSet('chk-', CHECKS)
      progress(`seeding ${sha}'s server, starting it again and filling it past the event bound`)
      // as this build's server (bench/context.js): seeded, then started again on its data dir, so that both hold
      // their checks as read from disk. One seeded live kept them in V8's heap, and its p99 read 1.4 x the same
      // build's (docs/storage.md, "Read on demand")
      const seeding = await startServe(dir, [], {bin})
      await seed(seeding.origin, set)
      await seeding.stop()
      const server = await startServe(dir, [], {bin})
      rounds.stoppers.push(() => server.kill())
      await fillPastEventBound(server.origin, set)
      rounds.pids.push(server.pid)
      const changing = rounds.runs.find((run) => run.name === 'changing')
      const stream = set.changes()
      rounds.runs.push({
        ...changing,
        name: COMPARED,
        url: server.origin,
        pid: server.pid,
        stream,
        swapsWith: 'changing',
      })
    },
    async run(bench) {
      const rounds = await bench.need('rounds')
      const {rate, p99, cpuUs, ratio, p99Ratio} = roundStats(rounds)
      const perRound = rounds.changing.map((r, i) => round(r.rps / rounds[COMPARED][i].rps, 2))
      bench.results.compared = {commit: sha, changing_vs_compared: perRound}
      bench.figures.push(
        figure(`changing pushes, this build vs ${sha}`, 'req/s', rate('changing'), {
          ...ratio('changing', COMPARED),
          note: `per round: ${perRound.join(', ')}`,
        }),
        figure(`changing pushes p99, this build vs ${sha}`, 'ms', p99('changing'), p99Ratio('changing', COMPARED)),
        figure(`server CPU per changing push, this build vs ${sha}`, 'µs', cpuUs('changing'), {
          baseline: cpuUs(COMPARED),
        }),
      )
    },
  }
}
