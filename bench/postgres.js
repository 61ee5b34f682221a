// The PostgreSQL store against the one-statement reference and the journal
// store, and two instances on one database against one, side by side in the
// same rounds. Method: docs/benchmarks.md "PostgreSQL".
import {mkdir} from 'node:fs/promises'
import {join} from 'node:path'
import pg from 'pg'
import {startEmbeddedPostgres} from '../scripts/embedded-postgres.js'
import {dispatcherRate} from './deliveries.js'
import {importPeer} from './peer-modules.js'
import {CheckSet, load, seed} from './load.js'
import {cpuMs, quiet, startHelper, startServe} from './processes.js'
import {DELIVERIES, RUNS, SHORT_SECONDS} from './settings.js'

/**
 * @typedef {import('./load.js').LoadResult & {cpuUs: number}} Run
 * @typedef {{reference: Run, journal: Run, one: Run, two: Run[], replays: Run[], gets: Run[]}} PostgresRound
 * @typedef {{postgres: number, journal: number}} DeliveryRun
 */

/**
 * Starts a PostgreSQL, the one-statement reference (bench/pg-push-server.js)
 * on a database of its own, a journal server and two `serve --database`
 * instances on one database, each store holding `checks` checks (the
 * database half from each instance's set). Measures deliveries to a
 * loopback receiver, the journal server against one instance (RUNS runs of
 * DELIVERIES each, before the second instance starts), then `rounds` rounds
 * of `seconds`-second runs of changing pushes (the reference, the journal
 * server, one instance alone, both at once, each under the load one had
 * alone), and of identical replays and GETs (journal, one instance). Stops
 * all of it before it resolves.
 *
 * @param {string} root
 * @param {{checks: number, rounds: number, seconds: number, warmup: number, progress: (text: string) => void}} options
 * @returns {Promise<{rounds: PostgresRound[], deliveries: DeliveryRun[]}>}
 */
export async function measurePostgres(root, {checks, rounds, seconds, warmup, progress}) {
  progress('starting PostgreSQL (embedded-postgres)')
  const postgres = await startEmbeddedPostgres({load: () => importPeer('embedded-postgres')})
  /** @type {(() => Promise<unknown>)[]} */
  const stoppers = [() => postgres.stop()]
  try {
    const database = await createDatabase(postgres.url, 'tablepay_bench')
    const reference = await startHelper('pg-push-server.js', [await createDatabase(postgres.url, 'reference')])
    stoppers.push(() => reference.stop())
    const home = join(root, 'postgres-home')
    await mkdir(home, {recursive: true})
    const journal = await startServe(join(root, 'postgres-journal'))
    stoppers.push(() => journal.kill())
    const a = await startServe(home, [], {database})
    stoppers.push(() => a.stop())
    const sets = {
      reference: new CheckSet('pga-', checks),
      journal: new CheckSet('chk-', checks),
      a: new CheckSet('pga-', checks / 2),
      b: new CheckSet('pgb-', checks / 2),
    }
    progress(`seeding ${checks} checks on the reference, the journal store and PostgreSQL`)
    await seed(reference.url, sets.reference)
    await seed(journal.origin, sets.journal)
    await seed(a.origin, sets.a)
    const deliveries = await measureDeliveries(journal, a, progress)
    const b = await startServe(home, [], {database})
    stoppers.push(() => b.stop())
    await seed(b.origin, sets.b)
    progress(`warming up the four servers (${warmup} s each)`)
    /** @type {[string, CheckSet][]} */
    const warmups = [
      [reference.url, sets.reference],
      [journal.origin, sets.journal],
      [a.origin, sets.a],
      [b.origin, sets.b],
    ]
    for (const [url, set] of warmups) await load(url, set.changes(), {duration: warmup})
    const pids = [reference.child.pid, journal.pid, a.pid, b.pid]
    /** A run of `stream` against the server at `url`, with the CPU time its process `pid` took per request. */
    const run = async (url, pid, stream, duration = seconds) => {
      await quiet(pids)
      const before = cpuMs(pid)
      const result = await load(url, stream, {duration})
      return {...result, cpuUs: ((cpuMs(pid) - before) * 1000) / result.requests}
    }
    /** @type {PostgresRound[]} */
    const results = []
    for (let round = 1; round <= rounds; round++) {
      progress(`PostgreSQL round ${round}/${rounds}: reference, journal, one instance, two instances, replays, GETs`)
      const referenceRun = await run(reference.url, reference.child.pid, sets.reference.changes())
      const journalRun = await run(journal.origin, journal.pid, sets.journal.changes())
      const one = await run(a.origin, a.pid, sets.a.changes())
      await quiet(pids)
      const two = await Promise.all([
        load(a.origin, sets.a.changes(), {duration: seconds}),
        load(b.origin, sets.b.changes(), {duration: seconds}),
      ])
      const replays = [
        await run(journal.origin, journal.pid, sets.journal.replays(), SHORT_SECONDS),
        await run(a.origin, a.pid, sets.a.replays(), SHORT_SECONDS),
      ]
      const gets = [
        await run(journal.origin, journal.pid, sets.journal.gets(), SHORT_SECONDS),
        await run(a.origin, a.pid, sets.a.gets(), SHORT_SECONDS),
      ]
      results.push({reference: referenceRun, journal: journalRun, one, two: two.map(withoutCpu), replays, gets})
    }
    return {rounds: results, deliveries}
  } finally {
    for (const stop of stoppers.reverse()) await stop().catch(() => undefined)
  }
}

const withoutCpu = (run) => ({...run, cpuUs: NaN})

/** Deliveries/s to a loopback receiver, the journal server and one instance by turns, after a warm-up of each. */
async function measureDeliveries(journal, instance, progress) {
  const receiver = await startHelper('receiver.js')
  try {
    await dispatcherRate(journal, receiver, DELIVERIES, 'warm-journal')
    await dispatcherRate(instance, receiver, DELIVERIES, 'warm-postgres')
    /** @type {DeliveryRun[]} */
    const runs = []
    for (let i = 1; i <= RUNS; i++) {
      progress(`deliveries ${i}/${RUNS}: journal, PostgreSQL (${DELIVERIES} each)`)
      await quiet([journal.pid, instance.pid])
      const journalRate = await dispatcherRate(journal, receiver, DELIVERIES, `journal-${i}`)
      await quiet([journal.pid, instance.pid])
      runs.push({journal: journalRate, postgres: await dispatcherRate(instance, receiver, DELIVERIES, `postgres-${i}`)})
    }
    return runs
  } finally {
    await receiver.stop()
  }
}

/** Creates `name` on the PostgreSQL at `adminUrl`, and returns its URL. */
export async function createDatabase(adminUrl, name) {
  const client = new pg.Client({connectionString: adminUrl})
  await client.connect()
  try {
    await client.query(`CREATE DATABASE ${name}`)
  } finally {
    await client.end()
  }
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return url.toString()
}
