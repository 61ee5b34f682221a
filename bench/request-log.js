// The cost of the request log (docs/api.md, "The request log"): the same
// changing pushes on two servers, one with the log on (the default, 1,000
// requests per account) and one with `--request-log 0`, paired round by
// round. The access line is off on both (stdout is not a terminal).
import {join} from 'node:path'
import {CheckSet, fillPastEventBound, load, seed} from './load.js'
import {quiet, startServe} from './processes.js'
import {median} from './stats.js'

export const REQUEST_LOG_CHECKS = 100

/**
 * Runs `rounds` paired rounds of `seconds` each (log on, then off) after a
 * warm-up of each; resolves with both servers' runs and the per-round ratios.
 *
 * @param {string} root a temp dir for both data dirs
 * @param {{rounds: number, seconds: number, warmup: number, progress: (text: string) => void}} options
 */
export async function measureRequestLog(root, {rounds, seconds, warmup, progress}) {
  const on = await startServe(join(root, 'log-on'))
  const off = await startServe(join(root, 'log-off'), ['--request-log', '0'])
  try {
    const sets = {on: new CheckSet('log-', REQUEST_LOG_CHECKS), off: new CheckSet('log-', REQUEST_LOG_CHECKS)}
    await seed(on.origin, sets.on)
    await seed(off.origin, sets.off)
    progress('request log: filling both servers past the event bound')
    await fillPastEventBound(on.origin, sets.on)
    await fillPastEventBound(off.origin, sets.off)
    progress(`request log: warming up (${warmup} s each)`)
    await load(on.origin, sets.on.changes(), {duration: warmup})
    await load(off.origin, sets.off.changes(), {duration: warmup})
    const runs = {on: [], off: []}
    for (let round = 1; round <= rounds; round++) {
      progress(`request log ${round}/${rounds} (${seconds} s each: log on, log off)`)
      await quiet([on.pid, off.pid])
      runs.on.push(await load(on.origin, sets.on.changes(), {duration: seconds}))
      await quiet([on.pid, off.pid])
      runs.off.push(await load(off.origin, sets.off.changes(), {duration: seconds}))
    }
    const ratios = runs.on.map((r, i) => r.rps / runs.off[i].rps)
    return {runs, ratios, on: median(runs.on.map((r) => r.rps)), off: median(runs.off.map((r) => r.rps))}
  } finally {
    await on.stop()
    await off.stop()
  }
}
