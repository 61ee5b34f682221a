// Memory and restart after many changing pushes: samples taken while the
// pushes run, the restart on the data dir they leave, the extrapolation to
// 1,000,000 pushes of the default run, and the opt-in soak that makes all
// 1,000,000. Method: docs/benchmarks.md "Memory and restart".
import {CheckSet, load, seed} from './load.js'
import {dirMb, residentMb, startServe} from './processes.js'

// BENCH_SOAK_PUSHES: a shorter soak, to try the soak itself
export const SOAK_PUSHES = Number(process.env.BENCH_SOAK_PUSHES) || 1_000_000
export const SOAK_SEGMENT = 100_000

/**
 * @typedef {{pushes: number, rss_mb: number, floor_mb: number, disk_mb: number}} Sample
 */

/**
 * Resident memory of `pid` read every 100 ms: its lowest reading since the
 * last take. A single reading lands anywhere in the garbage collector's
 * cycle (40 MB apart at 100,000 pushes); the lowest of a round is the
 * memory the server still holds after collecting.
 */
export function watchFloor(pid) {
  let floor = Infinity
  const read = () => {
    try {
      floor = Math.min(floor, residentMb(pid))
    } catch {
      // the process is gone: the last floor stands
    }
  }
  const timer = setInterval(read, 100)
  return {
    take() {
      read()
      const value = floor
      floor = Infinity
      return value
    },
    stop: () => clearInterval(timer),
  }
}

/** Resident memory of `serve` (now and its `floor`) and the size of `dir` after `pushes` changing pushes. */
export function sample(serve, dir, pushes, floor) {
  return {pushes, rss_mb: residentMb(serve.pid), floor_mb: floor, disk_mb: dirMb(dir)}
}

/** Least-squares slope of `y` over `x`, per unit of x (0 for fewer than two points). */
function slope(points, y) {
  if (points.length < 2) return 0
  const mx = points.reduce((s, p) => s + p.pushes, 0) / points.length
  const my = points.reduce((s, p) => s + p[y], 0) / points.length
  const num = points.reduce((s, p) => s + (p.pushes - mx) * (p[y] - my), 0)
  const den = points.reduce((s, p) => s + (p.pushes - mx) ** 2, 0)
  return den === 0 ? 0 : num / den
}

/**
 * What `samples` say about SOAK_PUSHES pushes: the growth of memory (the
 * floors) and disk per push over the later half of the samples (by then the default run has
 * passed the 100,000 events an account keeps by default, so a bound shows
 * as a flat line), carried on linearly from the last sample; never below
 * what was measured. A restart time is carried on in proportion to the
 * data dir's size, along the line through the restart on the seeded dir
 * (`seeded`) and the one after the pushes (`loaded`).
 *
 * @param {Sample[]} samples
 * @param {{ms: number, disk_mb: number}} seeded
 * @param {{ms: number, disk_mb: number}[]} restarts
 */
export function extrapolate(samples, seeded, restarts) {
  const later = samples.slice(Math.floor(samples.length / 2))
  const last = samples[samples.length - 1]
  const rest = SOAK_PUSHES - last.pushes
  const rssPerPush = Math.max(0, slope(later, 'floor_mb'))
  const diskPerPush = Math.max(0, slope(later, 'disk_mb'))
  const disk = last.disk_mb + diskPerPush * rest
  const restart = (loaded) => {
    const perMb =
      loaded.disk_mb > seeded.disk_mb ? Math.max(0, (loaded.ms - seeded.ms) / (loaded.disk_mb - seeded.disk_mb)) : 0
    return loaded.ms + perMb * (disk - loaded.disk_mb)
  }
  return {
    rss_mb: last.rss_mb + rssPerPush * rest,
    disk_mb: disk,
    rss_kb_per_push: rssPerPush * 1024,
    disk_kb_per_push: diskPerPush * 1024,
    restart_ms: restarts.map(restart),
  }
}

/**
 * The two restarts of a data dir a user meets: after SIGKILL (the journal
 * replayed) and after a clean stop (which compacts first). `serve` is
 * killed; resolves with both times and the server left running.
 */
export async function restarts(serve, dir) {
  await serve.kill()
  const afterKillMb = dirMb(dir)
  const killed = await startServe(dir)
  await killed.stop()
  const afterStopMb = dirMb(dir)
  const clean = await startServe(dir)
  return {
    kill: {ms: killed.startMs, disk_mb: afterKillMb},
    stop: {ms: clean.startMs, disk_mb: afterStopMb},
    server: clean,
  }
}

/**
 * The soak: a fresh server on `dir` with `checks` checks, SOAK_PUSHES
 * changing pushes in segments of SOAK_SEGMENT (wrk, 50 connections),
 * memory and disk after each; then both restarts. A failure (a push
 * answered non-2xx, a server that does not come back) ends the soak and is
 * reported with what was measured until then.
 */
export async function soak(dir, checks, progress) {
  const set = new CheckSet('soak-', checks)
  let serve = await startServe(dir)
  const floor = watchFloor(serve.pid)
  const samples = []
  const segments = []
  let pushes = 0
  try {
    await seed(serve.origin, set)
    samples.push(sample(serve, dir, 0, residentMb(serve.pid)))
    while (pushes < SOAK_PUSHES) {
      const amount = Math.min(SOAK_SEGMENT, SOAK_PUSHES - pushes)
      const run = await load(serve.origin, set.changes(), {amount})
      pushes += run.outcomes.updated ?? 0
      segments.push({rps: Math.round(run.rps), p99_ms: run.p99})
      samples.push(sample(serve, dir, pushes, floor.take()))
      const last = samples[samples.length - 1]
      progress(`soak: ${pushes} changing pushes, ${Math.round(run.rps)}/s, ${Math.round(last.rss_mb)} MB resident`)
    }
    const {kill, stop, server} = await restarts(serve, dir)
    serve = server
    return {samples, segments, kill, stop}
  } catch (error) {
    return {samples, segments, error: error.message.split('\n').slice(0, 3).join(' ')}
  } finally {
    floor.stop()
    await serve.kill()
  }
}
