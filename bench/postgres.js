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
import {cpuMs, quiet, startHelper, startServe, stopOnSignal} from './processes.js'
import {DELIVERIES, DELIVERY_RUNS, SHORT_SECONDS} from './settings.js'

/**
 * @typedef {import('./load.js').LoadResult & {cpuUs: number}} Run
 * @typedef {{reference: Run, journal: Run, one: Run, replays: Run[], gets: Run[], beside: Run[], two: Run[]}} PostgresRound
 * @typedef {{postgres: number, journal: number, cpuUs: {journal: number, postgres: number, database: number}}} DeliveryRun
 */

/**
 * Starts a PostgreSQL, the one-statement reference (bench/pg-push-server.js)
 * on a database of its own, a journal server and a `serve --database`
 * instance, each store holding `checks` checks (the database half from the
 * instance's set). Measures `rounds` rounds of `seconds`-second runs of
 * changing pushes (the reference, the journal server, the instance alone on
 * its database) and of identical replays and GETs (journal, the instance),
 * then deliveries to a loopback receiver, the journal server against the
 * instance (DELIVERY_RUNS runs of DELIVERIES each). Then it starts a second
 * instance on the database, with the other half, and measures `rounds`
 * rounds of changing pushes through the reference again, through the first
 * instance beside the second, idle (`beside`: both), and through both at
 * once, each under the load one had alone. Stops all of it before it
 * resolves.
 *
 * @param {string} root
 * @param {{checks: number, rounds: number, seconds: number, warmup: number, progress: (text: string) => void}} options
 * @returns {Promise<{rounds: PostgresRound[], deliveries: DeliveryRun[]}>}
 */
export async function measurePostgres(root, {checks, rounds, seconds, warmup, progress}) {
  progress('starting PostgreSQL (embedded-postgres)')
  const postgres = await startPostgres()
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
    progress(`warming up the three servers (${warmup} s each)`)
    /** @type {[string, CheckSet][]} */
    const warmups = [
      [reference.url, sets.reference],
      [journal.origin, sets.journal],
      [a.origin, sets.a],
    ]
    for (const [url, set] of warmups) await load(url, set.changes(), {duration: warmup})
    const pids = [reference.child.pid, journal.pid, a.pid]
    const names = new Map([
      [reference.child.pid, 'the reference'],
      [journal.pid, 'the journal store'],
      [a.pid, 'the instance'],
    ])
    /** A run of `stream` against the server at `url`, with the CPU time its process `pid` took per request. */
    const run = async (url, pid, stream, duration = seconds) => {
      await quiet(pids)
      const before = cpuMs(pid)
      // a failed run names its server: the load generator knows only its port
      const result = await load(url, stream, {duration}).catch((error) => {
        throw new Error(`${names.get(pid)}, ${stream.kind}: ${error.message}`, {cause: error})
      })
      return {...result, cpuUs: ((cpuMs(pid) - before) * 1000) / result.requests}
    }
    const alone = []
    for (let round = 1; round <= rounds; round++) {
      progress(`PostgreSQL round ${round}/${rounds}: reference, journal, one instance, replays, GETs`)
      const referenceRun = await run(reference.url, reference.child.pid, sets.reference.changes())
      const journalRun = await run(journal.origin, journal.pid, sets.journal.changes())
      const one = await run(a.origin, a.pid, sets.a.changes())
      const replays = [
        await run(journal.origin, journal.pid, sets.journal.replays(), SHORT_SECONDS),
        await run(a.origin, a.pid, sets.a.replays(), SHORT_SECONDS),
      ]
      const gets = [
        await run(journal.origin, journal.pid, sets.journal.gets(), SHORT_SECONDS),
        await run(a.origin, a.pid, sets.a.gets(), SHORT_SECONDS),
      ]
      alone.push({reference: referenceRun, journal: journalRun, one, replays, gets})
    }
    // after the rounds: its 12,000 checks would push the rounds' out of the instance's check cache, and the
    // first round would measure them read again (docs/benchmarks.md, "PostgreSQL")
    const deliveries = await measureDeliveries(journal, a, database, progress)
    progress('starting a second instance on the database')
    const b = await startServe(home, [], {database})
    stoppers.push(() => b.stop())
    await seed(b.origin, sets.b)
    await load(b.origin, sets.b.changes(), {duration: warmup})
    pids.push(b.pid)
    /** @type {PostgresRound[]} */
    const results = []
    for (let round = 1; round <= rounds; round++) {
      progress(`PostgreSQL round ${round}/${rounds}: reference, one instance beside another, two instances`)
      const beside = [
        await run(reference.url, reference.child.pid, sets.reference.changes()),
        await run(a.origin, a.pid, sets.a.changes()),
      ]
      await quiet(pids)
      const two = await Promise.all([
        load(a.origin, sets.a.changes(), {duration: seconds}),
        load(b.origin, sets.b.changes(), {duration: seconds}),
      ])
      results.push({...alone[round - 1], beside, two: two.map(withoutCpu)})
    }
    return {rounds: results, deliveries}
  } finally {
    for (const stop of stoppers.reverse()) await stop().catch(() => undefined)
  }
}

const withoutCpu = (run) => ({...run, cpuUs: NaN})

/**
 * Deliveries/s to a loopback receiver, the journal server and one instance by turns, after a warm-up of each,
 * with the CPU per delivery of each server and of the instance's PostgreSQL backends (on `database`).
 */
async function measureDeliveries(journal, instance, database, progress) {
  const receiver = await startHelper('receiver.js')
  try {
    await dispatcherRate(journal, receiver, DELIVERIES, 'warm-journal')
    await dispatcherRate(instance, receiver, DELIVERIES, 'warm-postgres')
    /** @type {DeliveryRun[]} */
    const runs = []
    for (let i = 1; i <= DELIVERY_RUNS; i++) {
      progress(`deliveries ${i}/${DELIVERY_RUNS}: journal, PostgreSQL (${DELIVERIES} each)`)
      await quiet([journal.pid, instance.pid])
      const onJournal = await dispatcherRate(journal, receiver, DELIVERIES, `journal-${i}`, [journal.pid])
      await quiet([journal.pid, instance.pid])
      const pids = [instance.pid, ...(await backendPids(database))]
      const onPostgres = await dispatcherRate(instance, receiver, DELIVERIES, `postgres-${i}`, pids)
      const [server, ...backends] = onPostgres.cpuUs
      runs.push({
        journal: onJournal.rate,
        postgres: onPostgres.rate,
        cpuUs: {journal: onJournal.cpuUs[0], postgres: server, database: backends.reduce((a, b) => a + b, 0)},
      })
    }
    return runs
  } finally {
    await receiver.stop()
  }
}

/**
 * A throwaway PostgreSQL for the bench, stopped (its temp dir removed) by its `stop`, or before the bench exits
 * on Ctrl+C or SIGTERM: exiting at once left the dir behind, and on a SIGTERM postgres running.
 */
export async function startPostgres() {
  const postgres = await startEmbeddedPostgres({load: () => importPeer('embedded-postgres')})
  const forget = stopOnSignal(() => postgres.stop())
  return {
    url: postgres.url,
    stop: () => {
      forget()
      return postgres.stop()
    },
  }
}

/** The processes of the sessions open on the database at `url` (an instance's pool, session and listener), but this one's. */
async function backendPids(url) {
  const client = new pg.Client({connectionString: url})
  await client.connect()
  try {
    const {rows} = await client.query(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    )
    return rows.map((row) => row.pid)
  } finally {
    await client.end()
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
