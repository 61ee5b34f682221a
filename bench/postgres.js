// The PostgreSQL store against the journal store, and two instances on one
// database against one: changing pushes, side by side in the same rounds.
// Method: docs/benchmarks.md "PostgreSQL".
import {mkdir} from 'node:fs/promises'
import {join} from 'node:path'
import pg from 'pg'
import {startEmbeddedPostgres} from '../scripts/embedded-postgres.js'
import {importPeer} from './peer-modules.js'
import {CheckSet, load, seed} from './load.js'
import {quiet, startServe} from './processes.js'

/**
 * @typedef {import('./load.js').LoadResult} LoadResult
 * @typedef {{journal: LoadResult, one: LoadResult, two: LoadResult[]}} PostgresRound
 */

/**
 * Starts a PostgreSQL, a journal server and two `serve --database`
 * instances on one database, each store holding `checks` checks (the
 * database half from each instance's set), then measures `rounds` rounds of
 * `seconds`-second runs of changing pushes: the journal server, one
 * instance alone, both instances at once (each under the load one had
 * alone). Stops all of it before it resolves.
 *
 * @param {string} root
 * @param {{checks: number, rounds: number, seconds: number, warmup: number, progress: (text: string) => void}} options
 * @returns {Promise<PostgresRound[]>}
 */
export async function measurePostgres(root, {checks, rounds, seconds, warmup, progress}) {
  progress('starting PostgreSQL (embedded-postgres)')
  const postgres = await startEmbeddedPostgres({load: () => importPeer('embedded-postgres')})
  /** @type {(() => Promise<unknown>)[]} */
  const stoppers = [() => postgres.stop()]
  try {
    const database = await createDatabase(postgres.url, 'tablepay_bench')
    const home = join(root, 'postgres-home')
    await mkdir(home, {recursive: true})
    const journal = await startServe(join(root, 'postgres-journal'))
    stoppers.push(() => journal.kill())
    const a = await startServe(home, [], {database})
    stoppers.push(() => a.stop())
    const b = await startServe(home, [], {database})
    stoppers.push(() => b.stop())
    const sets = {
      journal: new CheckSet('chk-', checks),
      a: new CheckSet('pga-', checks / 2),
      b: new CheckSet('pgb-', checks / 2),
    }
    progress(`seeding ${checks} checks on the journal store and ${checks} on PostgreSQL`)
    await seed(journal.origin, sets.journal)
    await Promise.all([seed(a.origin, sets.a), seed(b.origin, sets.b)])
    progress(`warming up the three servers (${warmup} s each)`)
    for (const [server, set] of [
      [journal, sets.journal],
      [a, sets.a],
      [b, sets.b],
    ])
      await load(/** @type {any} */ (server).origin, /** @type {CheckSet} */ (set).changes(), {duration: warmup})
    const pids = [journal.pid, a.pid, b.pid]
    /** @type {PostgresRound[]} */
    const results = []
    for (let round = 1; round <= rounds; round++) {
      progress(`PostgreSQL round ${round}/${rounds}: journal, one instance, two instances (${seconds} s each)`)
      await quiet(pids)
      const journalRun = await load(journal.origin, sets.journal.changes(), {duration: seconds})
      await quiet(pids)
      const one = await load(a.origin, sets.a.changes(), {duration: seconds})
      await quiet(pids)
      const two = await Promise.all([
        load(a.origin, sets.a.changes(), {duration: seconds}),
        load(b.origin, sets.b.changes(), {duration: seconds}),
      ])
      results.push({journal: journalRun, one, two})
    }
    return results
  } finally {
    for (const stop of stoppers.reverse()) await stop().catch(() => undefined)
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
