import {readdir, readFile, rm, writeFile} from 'node:fs/promises'
import {homedir} from 'node:os'
import {join} from 'node:path'
import {makeDir} from './make-dir.js'
import {isAlive} from './process-alive.js'

/**
 * The environment a client reads its settings from, `process.env` by default: typed without Node's own types,
 * so that a project using the client needs no `@types/node`.
 */
export type Env = Readonly<Record<string, string | undefined>>

/** The file `tablepay serve` writes into its data dir on start, so clients started there need no flags. */
export const SERVER_FILE = 'server.json'

/** What `tablepay serve` tells clients about itself: in its data dir's `server.json`, and in the registry. */
export interface ServerFile {
  url: string
  pid: number
  /** A write key of the first account. */
  api_key?: string
  read_key?: string
  /** The data dir it serves; null with --memory or --database. Absent from older files. */
  data_dir?: string | null
  /** With --database: the database (no password) and the schema of the sandbox it serves, which instances of one share. */
  database?: string
  schema?: string
  /** The directory it was started from: clients there, or below it, prefer it to other servers. Absent from older files. */
  cwd?: string
  /** When it started (ISO 8601), to tell servers apart. Absent from older files. */
  started_at?: string
}

/**
 * The per-user registry of running servers: `$TABLEPAY_HOME/servers`
 * (default `~/.tablepay/servers`), one file per server, so a client started
 * in any directory finds one (docs/cli.md, "How the CLI finds the server").
 */
export function registryDir(env: Env = process.env): string {
  return join(env.TABLEPAY_HOME || join(homedir(), '.tablepay'), 'servers')
}

/**
 * Adds a running server to the registry (mode 0600: it holds keys) and
 * resolves with the function that removes it. Entries of servers killed
 * without cleaning up are removed on the way. A registry that cannot be
 * written only means clients elsewhere will not find this server: the
 * server still starts, and `unwritable` says why, for it to tell.
 *
 * @example
 * const {unregister} = await registerServer({url, pid: process.pid, data_dir: null, api_key})
 * await unregister()
 */
export async function registerServer(
  server: ServerFile,
  env: Env = process.env,
): Promise<{unregister: () => Promise<void>; unwritable?: string}> {
  const dir = registryDir(env)
  const path = join(dir, `${server.pid}-${new URL(server.url).port}.json`)
  try {
    // not Node's recursive mkdir, which never settles under /proc (make-dir.ts)
    await makeDir(dir, 0o700)
    for (const [name, entry] of await readEntries(dir))
      if (!isAlive(entry.pid)) await rm(join(dir, name), {force: true})
    await writeFile(path, JSON.stringify(server, null, 2) + '\n', {mode: 0o600})
  } catch (error) {
    const why = (error as Error).message
    return {
      unregister: async () => {},
      unwritable: `Not listed in ${dir} (${why}): a client in another directory will not find this server. Give TABLEPAY_HOME a directory you can write, or pass --url to clients.`,
    }
  }
  return {unregister: () => rm(path, {force: true})}
}

/** Every readable entry of the registry; a server killed without cleaning up leaves one whose pid is gone. */
export async function registeredServers(env: Env = process.env): Promise<ServerFile[]> {
  return (await readEntries(registryDir(env))).map(([, entry]) => entry)
}

async function readEntries(dir: string): Promise<[name: string, entry: ServerFile][]> {
  const names = (await readdir(dir).catch(() => [])).filter((name) => name.endsWith('.json'))
  const read = (name: string) =>
    readFile(join(dir, name), 'utf8')
      .then(JSON.parse)
      .catch(() => undefined)
  const entries = await Promise.all(names.map(async (name) => [name, await read(name)] as [string, ServerFile]))
  return entries.filter(([, entry]) => typeof entry?.url === 'string' && Number.isInteger(entry?.pid))
}
