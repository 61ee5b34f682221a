/**
 * `tablepay/testing`: the real simulator, in process, on a free port, for
 * vitest, jest or node's test runner.
 */
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {Seed} from './domain/seed-schema.js'
import {startServer} from './server/start.js'
import {checkDatabaseUrl} from './shared/database-url.js'
import {type SeededAccount, simulatorControls, type SimulatorControls, untilClosed} from './simulator-controls.js'

export type {SeededAccount, SimulatorControls}
export type {ScenarioReport, StepReport} from './scenarios/run.js'
export {InvalidScenarioError, ScenarioFailedError} from './scenarios/errors.js'
export type {Seed}

export interface SimulatorOptions {
  /** Accounts, locations and keys: a seed, or the path of a seed file (see fixtures/seed.json). Default: `acct_demo` with random keys. */
  seed?: Seed | string
  /** Keep nothing on disk (default). With false, the server journals to a fresh temp dir, removed by `close()`. */
  memory?: boolean
  /**
   * A PostgreSQL URL (`postgres://…`): keep the records in that database
   * instead, as `tablepay serve --database` does; `memory` is then ignored.
   * The database is left as it is on close.
   */
  database?: string
  /** Default 0: a free port. A port in use is an error naming it; the simulator never moves to another one. */
  port?: number
}

export interface Simulator extends SimulatorControls {
  /** The temp data dir with `memory: false`, else undefined. */
  dataDir: string | undefined
  /** Stops the server (and removes its temp dir); each control then rejects saying the simulator was closed. */
  close(): Promise<void>
}

/**
 * Starts the simulator on 127.0.0.1 and resolves once it answers.
 *
 * @example
 * const sim = await startSimulator({seed: 'node_modules/tablepay/fixtures/seed.json'})
 * const client = new TablepayClient({url: sim.url, apiKey: sim.apiKey})
 * await client.pushCheck('t12', check)
 * await sim.close()
 */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  if (options.database !== undefined) checkDatabaseUrl(options.database, 'startSimulator: database')
  const dataDir =
    options.memory === false && !options.database ? await mkdtemp(join(tmpdir(), 'tablepay-sim-')) : undefined
  const seed = typeof options.seed === 'string' ? {seedFile: options.seed} : {seed: options.seed}
  const removeDir = () => (dataDir ? rm(dataDir, {recursive: true, force: true}) : Promise.resolve())
  let server: Awaited<ReturnType<typeof startServer>> | undefined
  try {
    server = await startServer({
      port: options.port ?? 0,
      host: '127.0.0.1',
      dataDir,
      database: options.database,
      ...seed,
    })
    const running = server
    let closed = false
    return {
      ...untilClosed(
        simulatorControls(`${server.url}/v1`, server.accounts),
        () => closed,
        'start another with startSimulator()',
      ),
      dataDir,
      async close() {
        closed = true
        // a close that fails (its dir removed under it) still removes the temp dir made for it
        try {
          await running.close()
        } finally {
          await removeDir()
        }
      },
    }
  } catch (error) {
    // the start's own failure is the one to see, not a close's after it
    await server?.close().catch(() => undefined)
    await removeDir()
    throw error
  }
}
