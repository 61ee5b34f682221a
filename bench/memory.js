// Memory and restart after many changing pushes: samples taken while the
// push rounds run, the restart on the data dir they leave, and the soak
// that makes all 1,000,000. Method: docs/benchmarks.md "Memory and restart".
import {api} from './deliveries.js'
import {CheckSet, load, seed} from './load.js'
import {dirMb, residentMb, startServe} from './processes.js'

// BENCH_SOAK_PUSHES: a shorter soak, to try the soak itself
export const SOAK_PUSHES = Number(process.env.BENCH_SOAK_PUSHES) || 1_000_000
export const SOAK_SEGMENT = 100_000
// the soak with a webhook endpoint: past the event bound twice, so that retention drops events with their deliveries
export const ENDPOINT_SOAK_PUSHES = Number(process.env.BENCH_ENDPOINT_SOAK_PUSHES) || 250_000
const ENDPOINT_SOAK_SEGMENT = 50_000
/** How long an endpoint soak waits for a segment's deliveries to be made. */
const DRAIN_MS = 300_000

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

/** Journal bytes a kill leaves at most: the store compacts past 32 MiB of it (docs/storage.md, "Chunks"). */
const JOURNAL_CAP_MB = 32
/** Pushes a fill sends at once: about 2.5 MB of journal, less than the window below the cap it aims for. */
const FILL_STEP = 2000

/** MB of journal in `dir`: what a restart after a kill replays. */
const journalMb = (dir) => dirMb(dir, (name) => name.startsWith('journal.'))

/**
 * Pushes to `serve` until its journal is within a few MB of the size that
 * sets off a compaction: the kill that follows leaves the most a restart
 * can have to replay, not what a fixed count of pushes happens to leave
 * (docs/benchmarks.md, "Memory and restart"). Resolves with the journal's MB.
 */
async function fillJournal(serve, dir, set) {
  for (let steps = 0; steps < 100; steps++) {
    const mb = journalMb(dir)
    if (mb >= JOURNAL_CAP_MB - 3 && mb < JOURNAL_CAP_MB) return mb
    await load(serve.origin, set.changes(), {amount: FILL_STEP})
  }
  return journalMb(dir)
}

/**
 * Waits until `serve` has no pending delivery: what the pushes so far sent
 * its endpoint has been delivered, so each sample sees the deliveries as
 * they stay, not a backlog.
 */
async function drained(serve) {
  const until = performance.now() + DRAIN_MS
  while ((await api(serve.url, 'GET', '/deliveries?status=pending&limit=1')).json.data.length > 0) {
    if (performance.now() > until) throw new Error(`deliveries still pending after ${DRAIN_MS / 1000} s`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/**
 * The soak: a fresh server on `dir` with `checks` checks, SOAK_PUSHES
 * changing pushes in segments of SOAK_SEGMENT (wrk, 50 connections),
 * memory and disk after each; then both restarts. A failure (a push
 * answered non-2xx, a server that does not come back) ends the soak and is
 * reported with what was measured until then.
 *
 * With `endpoint` (a receiver's URL), the server has one webhook endpoint
 * taking every check event: ENDPOINT_SOAK_PUSHES pushes, each segment's
 * deliveries made before the next, a delivery kept beside each event
 * (docs/benchmarks.md, "Memory and restart").
 *
 * @param {string} dir
 * @param {number} checks
 * @param {(line: string) => void} progress
 * @param {{endpoint?: string}} [options]
 */
export async function soak(dir, checks, progress, {endpoint} = {}) {
  const set = new CheckSet('soak-', checks)
  const [total, segment] = endpoint ? [ENDPOINT_SOAK_PUSHES, ENDPOINT_SOAK_SEGMENT] : [SOAK_PUSHES, SOAK_SEGMENT]
  const label = endpoint ? 'soak with an endpoint' : 'soak'
  let serve = await startServe(dir)
  const floor = watchFloor(serve.pid)
  const samples = []
  const segments = []
  let pushes = 0
  try {
    await seed(serve.origin, set)
    if (endpoint)
      await api(serve.url, 'POST', '/webhook-endpoints', {
        url: endpoint,
        event_types: ['check.created', 'check.updated'],
      })
    samples.push(sample(serve, dir, 0, residentMb(serve.pid)))
    while (pushes < total) {
      const amount = Math.min(segment, total - pushes)
      const run = await load(serve.origin, set.changes(), {amount})
      pushes += run.outcomes.updated ?? 0
      if (endpoint) await drained(serve)
      segments.push({rps: Math.round(run.rps), p99_ms: run.p99})
      samples.push(sample(serve, dir, pushes, floor.take()))
      const last = samples[samples.length - 1]
      progress(`${label}: ${pushes} changing pushes, ${Math.round(run.rps)}/s, ${Math.round(last.rss_mb)} MB resident`)
    }
    const journal = await fillJournal(serve, dir, set)
    const {kill, stop, server} = await restarts(serve, dir)
    serve = server
    return {samples, segments, kill: {...kill, journal_mb: journal}, stop}
  } catch (error) {
    return {samples, segments, error: error.message.split('\n').slice(0, 3).join(' ')}
  } finally {
    floor.stop()
    await serve.kill()
  }
}
