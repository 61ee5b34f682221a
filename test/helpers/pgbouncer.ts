import {execFileSync, spawn} from 'node:child_process'
import {existsSync} from 'node:fs'
import {chmod, mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {freePort} from './ports.js'

/** Debian's PgBouncer (`apt-get install pgbouncer`, which .ci/run does): where a user's shell may not look. */
const PGBOUNCER = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((path) => existsSync(path)) ?? 'pgbouncer'

export interface PgBouncer {
  /** `url` with PgBouncer's host and port: the same database, through the pooler. */
  url: string
  stop(): Promise<void>
}

/**
 * PgBouncer in front of the PostgreSQL at `url`, lending server sessions in
 * `mode`, as a team may put one between its instances and the database.
 * It logs in as `url`'s user; the test PostgreSQL trusts it. As root it runs
 * as the `postgres` user, as PostgreSQL does: it refuses root.
 */
export async function startPgBouncer(url: string, mode: 'session' | 'transaction' | 'statement'): Promise<PgBouncer> {
  const target = new URL(url)
  const dir = await mkdtemp(join(tmpdir(), 'tablepay-pgbouncer-'))
  await chmod(dir, 0o755)
  const port = await freePort()
  const config = join(dir, 'pgbouncer.ini')
  await writeFile(
    config,
    [
      '[databases]',
      `* = host=${target.hostname} port=${target.port} user=${decodeURIComponent(target.username)}`,
      '[pgbouncer]',
      ...['listen_addr = 127.0.0.1', `listen_port = ${port}`, 'unix_socket_dir =', 'auth_type = any'],
      `pool_mode = ${mode}`,
    ].join('\n'),
  )
  const asPostgres = process.getuid?.() === 0 ? {uid: idOf('-u'), gid: idOf('-g')} : {}
  const child = spawn(PGBOUNCER, [config], {...asPostgres, stdio: ['ignore', 'ignore', 'pipe']})
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()))
  let said = ''
  await new Promise<void>((resolve, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'ENOENT' ? new Error('pgbouncer is missing: apt-get install pgbouncer') : error),
    )
    child.stderr.on('data', (chunk: Buffer) => {
      said += chunk.toString()
      if (said.includes(`listening on 127.0.0.1:${port}`)) resolve()
    })
    void exited.then(() => reject(new Error(`pgbouncer exited: ${said}`)))
  }).catch(async (error: unknown) => {
    await rm(dir, {recursive: true, force: true})
    throw error
  })
  const through = new URL(url)
  through.port = String(port)
  return {
    url: through.toString(),
    async stop() {
      child.kill('SIGTERM')
      await exited
      await rm(dir, {recursive: true, force: true})
    },
  }
}

/** The `postgres` user's id (`-u`) or group's (`-g`). */
const idOf = (flag: '-u' | '-g'): number => Number(execFileSync('id', [flag, 'postgres'], {encoding: 'utf8'}))
