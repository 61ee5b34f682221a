import {readFile} from 'node:fs/promises'
import {join, resolve} from 'node:path'
import type {ClientOptions} from './client.js'
import {TablepayConfigError} from './errors.js'
import {isAlive, registeredServers, registryDir, SERVER_FILE, type ServerFile} from '../shared/server-registry.js'
import {serverBase} from '../shared/server-url.js'

export {SERVER_FILE, type ServerFile}

export const DEFAULT_URL = 'http://127.0.0.1:4747'

/** How long a server found in a file has to answer `/v1/health` before it counts as stopped. */
const HEALTH_TIMEOUT_MS = 1000

/** The data dir clients look in: `TABLEPAY_DATA`, else `./.tablepay`. */
export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.TABLEPAY_DATA || '.tablepay')
}

/**
 * Where the client connects and with which key: flags first, then
 * `TABLEPAY_URL`/`TABLEPAY_API_KEY`, then the `server.json` of a running
 * server in the data dir (`TABLEPAY_DATA`, else `./.tablepay`), then the one
 * running server in the per-user registry, then the default URL. A server
 * counts when its process is alive and it answers. Without a key anywhere
 * the error lists what was tried. See README, "How the CLI finds the server".
 *
 * @example
 * const client = new TablepayClient(await resolveClientConfig({url: flags.url, apiKey: flags['api-key']}))
 */
export async function resolveClientConfig(
  flags: Partial<ClientOptions> = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<ClientOptions> {
  const url = normalize(flags.url || env.TABLEPAY_URL)
  if (url !== undefined && !isHttpUrl(url)) {
    const source = flags.url ? '--url' : 'TABLEPAY_URL'
    const message = `${source} "${flags.url || env.TABLEPAY_URL}" is not an http(s) URL: give the tablepay server's, e.g. ${DEFAULT_URL}.`
    throw new TablepayConfigError('invalid_url', message)
  }
  const apiKey = flags.apiKey || env.TABLEPAY_API_KEY
  // Files are read only when needed: a stale or broken one must not get in the way of explicit settings.
  if (url && apiKey) return {url, apiKey}
  const tried: string[] = []
  const server = (await fromDataDir(env, url, tried)) ?? (await fromRegistry(env, url, tried))
  if (apiKey || server?.api_key) return {url: url || server?.url || DEFAULT_URL, apiKey: apiKey || server!.api_key!}
  tried.push(await probeDescription(url || DEFAULT_URL))
  throw new TablepayConfigError(
    'missing_api_key',
    [
      'No API key. Tried:',
      '  - --api-key and TABLEPAY_API_KEY: not set',
      ...tried.map((line) => `  - ${line}`),
      'Pass --api-key or set TABLEPAY_API_KEY (`tablepay serve` prints the keys), or start `tablepay serve`.',
    ].join('\n'),
  )
}

type Env = NodeJS.ProcessEnv

async function fromDataDir(env: Env, url: string | undefined, tried: string[]): Promise<ServerFile | undefined> {
  const path = join(dataDir(env), SERVER_FILE)
  const server = await readServerFile(path)
  const problem = !server ? 'not found' : await whyNotUsable(server, url)
  if (!problem) return server
  tried.push(`${path}: ${problem}`)
}

async function fromRegistry(env: Env, url: string | undefined, tried: string[]): Promise<ServerFile | undefined> {
  const dir = registryDir(env)
  const entries = await registeredServers(env)
  const problems = await Promise.all(entries.map((server) => whyNotUsable(server, url)))
  const running = entries.filter((_, i) => !problems[i])
  if (running.length === 1) return running[0]
  if (running.length > 1) throw severalServers(running, dir)
  // why each one was passed over: a server alive but not answering is not "not running"
  const found = entries.length === 0 ? 'none registered' : `none usable (${problems.join('; ')})`
  tried.push(`running servers registered in ${dir}: ${found}`)
}

/**
 * Which running servers there are and how to pick one, from what the
 * registry knows: each one's URL (which `--url` takes, finding the key with
 * it) and its data dir, if it has one. A server with none may run with
 * `--memory` or `--database`: the entry does not say which.
 */
function severalServers(running: ServerFile[], dir: string): TablepayConfigError {
  const withDir = running.find((s) => typeof s.data_dir === 'string')
  return new TablepayConfigError(
    'several_servers',
    [
      `${running.length} tablepay servers are running (registered in ${dir}):`,
      ...running.map((s) => `  - ${s.url} (pid ${s.pid}, ${whereItKeeps(s.data_dir)})`),
      `Pick one by its URL with --url or TABLEPAY_URL (its key is in the registry), e.g. --url ${running[0]!.url}`,
      ...(withDir ? [`or one with a data dir by the dir, e.g. TABLEPAY_DATA=${withDir.data_dir}`] : []),
    ].join('\n'),
  )
}

/** Where a registered server keeps its data, as far as its entry says. */
function whereItKeeps(dataDir: string | null | undefined): string {
  if (typeof dataDir === 'string') return `data dir ${dataDir}`
  // null: started without a data dir, the entry does not say how; absent: an earlier version's entry
  return dataDir === null ? 'started with --memory or --database' : 'data dir not recorded'
}

/** Undefined when `server` is the one to use: for `url` if given, alive and answering; else why not. */
async function whyNotUsable(server: ServerFile, url: string | undefined): Promise<string | undefined> {
  if (url && normalize(server.url) !== url) return `its server is at ${server.url}, not ${url}`
  if (!isAlive(server.pid)) return `its server (pid ${server.pid}) is not running`
  if (!(await answers(server.url))) return `its server (pid ${server.pid}) does not answer at ${server.url}`
}

async function probeDescription(url: string): Promise<string> {
  return `${url}: ${(await answers(url)) ? 'a server answers, but its keys are not known here' : 'no server answers'}`
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/v1/health`, {signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS)})
    await response.body?.cancel()
    return response.ok
  } catch {
    return false
  }
}

// compare URLs in one form
const normalize = (url: string | undefined): string | undefined => (url === undefined ? url : serverBase(url))

async function readServerFile(path: string): Promise<ServerFile | undefined> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  try {
    return JSON.parse(text) as ServerFile
  } catch {
    const message = `${path} is not valid JSON: delete it, or pass --url and --api-key.`
    throw new TablepayConfigError('invalid_server_file', message)
  }
}

/**
 * Whether `text` is an http or https URL: `127.0.0.1:4747` parses as a URL
 * of scheme `127.0.0.1:` and is not one.
 *
 * @example
 * isHttpUrl('http://127.0.0.1:4747') // true
 */
export function isHttpUrl(text: string): boolean {
  const url = URL.canParse(text) ? new URL(text) : undefined
  return url?.protocol === 'http:' || url?.protocol === 'https:'
}
