import {readFile} from 'node:fs/promises'
import {dirname, join, resolve} from 'node:path'
import type {ClientOptions} from './client.js'
import {TablepayConfigError, TablepayConnectionError, TablepayUnexpectedAnswerError} from './errors.js'
import {isAlive} from '../shared/process-alive.js'
import {type Env, registeredServers, registryDir, SERVER_FILE, type ServerFile} from '../shared/server-registry.js'
import {DEFAULT_URL, isHttpUrl, quoted, serverBase, serverUrlProblem} from '../shared/server-url.js'
import {shellWord} from '../shared/shell-word.js'

export {DEFAULT_URL, isHttpUrl, SERVER_FILE, type ServerFile}

/** How long a server found in a file has to answer `/v1/health` before it counts as stopped. */
const HEALTH_TIMEOUT_MS = 1000

/**
 * Where the client connects and with which key: flags first, then
 * `TABLEPAY_URL`/`TABLEPAY_API_KEY`, then the `server.json` of a running
 * server in a data dir (`TABLEPAY_DATA`, else the `.tablepay` of `cwd` or of
 * the nearest directory above it that has one), then, unless `TABLEPAY_DATA`
 * names the server (no URL given), the per-user registry's running server:
 * the only one, else the one started from `cwd` or from the nearest directory
 * above it; then the default URL. A server counts when its
 * process is alive and it answers. Several servers left to choose from, or no
 * key anywhere, is an error that says what it found: `connection_failed` when
 * nothing answers at the URL, and `unexpected_answer` when another kind of
 * server does (for a URL given, the very errors a key meets there), else
 * `missing_api_key`. See
 * docs/cli.md, "How the CLI finds the server".
 *
 * The other options given (`timeoutMs`, `headers`, `fetch`) are kept.
 *
 * @example
 * const client = new TablepayClient(await resolveClientConfig({url: flags.url, apiKey: flags['api-key']}))
 */
export async function resolveClientConfig(
  flags: Partial<ClientOptions> = {},
  env: Env = process.env,
  cwd = process.cwd(),
): Promise<ClientOptions> {
  return {...flags, ...(await serverOf(flags, env, cwd))}
}

/** The URL and key `resolveClientConfig` finds. */
async function serverOf(
  flags: Partial<ClientOptions>,
  env: Env,
  cwd: string,
): Promise<Pick<ClientOptions, 'url' | 'apiKey'>> {
  // an empty one is not set, as CI leaves a variable it has no value for (docs/cli.md)
  const given = flags.url || env.TABLEPAY_URL || undefined
  const url = normalize(given)
  const problem = url === undefined ? undefined : serverUrlProblem(url)
  if (problem) {
    const source = flags.url ? '--url' : 'TABLEPAY_URL'
    throw new TablepayConfigError('invalid_url', `${source} ${quoted(given)} ${problem}.`)
  }
  const apiKey = flags.apiKey || env.TABLEPAY_API_KEY
  // Files are read only when needed: a stale or broken one must not get in the way of explicit settings.
  if (url && apiKey) return {url, apiKey}
  const tried: string[] = []
  // TABLEPAY_DATA names the server, unless a URL does: another one that runs is not it, however alone (docs/cli.md)
  const named = url ? undefined : env.TABLEPAY_DATA || undefined
  const server =
    (await fromDataDir(env, cwd, url, tried)) ?? (named ? undefined : await fromRegistry(env, cwd, url, tried))
  // the server found is at the URL given, as it listens: `localhost` may resolve to the other loopback address
  if (apiKey || server?.api_key)
    return {url: normalize(server?.url) ?? url ?? DEFAULT_URL, apiKey: apiKey || server!.api_key!}
  const probed = url || DEFAULT_URL
  const probe = await health(probed)
  const {unanswered, foreign} = probe
  // Nothing answers, or another kind of server: the failure a key would have met, so that a script sees one code
  // for a server that is down. A URL named the server: the other places looked in only held keys for it.
  if (unanswered && url) throw new TablepayConnectionError(url, unanswered)
  if (foreign && url) throw foreign
  tried.push(`${probed}: ${healthFound(probed, probe)}`)
  const start = named ? `\`tablepay serve --data ${shellWord(named)}\`, or unset TABLEPAY_DATA` : '`tablepay serve`'
  throw new TablepayConfigError(
    unanswered ? 'connection_failed' : 'missing_api_key',
    [
      // most often nothing runs yet: the headline says so, not only the last place tried
      // a tablepay server answered (its status), whatever it said
      probe.status === undefined ? 'No tablepay server found, and no API key. Tried:' : 'No API key. Tried:',
      '  - --api-key and TABLEPAY_API_KEY: not set',
      ...tried.map((line) => `  - ${line}`),
      `Pass --api-key or set TABLEPAY_API_KEY (\`tablepay serve\` prints the keys), or start ${start}.`,
    ].join('\n'),
  )
}

/** `dir` and each directory above it, nearest first. */
function* upFrom(dir: string): Generator<string> {
  for (let at = dir, up = dirname(at); ; at = up, up = dirname(at)) {
    yield at
    if (up === at) return
  }
}

async function fromDataDir(
  env: Env,
  cwd: string,
  url: string | undefined,
  tried: string[],
): Promise<ServerFile | undefined> {
  const given = env.TABLEPAY_DATA ? resolve(cwd, env.TABLEPAY_DATA) : undefined
  const dirs = given ? [given] : [...upFrom(cwd)].map((dir) => join(dir, '.tablepay'))
  const problems: string[] = []
  for (const path of dirs.map((dir) => join(dir, SERVER_FILE))) {
    const server = await readServerFile(path)
    const problem = server && (await whyNotUsable(server, url))
    if (server && !problem) return server
    if (problem) problems.push(`${path}: ${problem}`)
  }
  const where = given ? join(given, SERVER_FILE) : `.tablepay/${SERVER_FILE} in ${cwd} and above`
  tried.push(...(problems.length > 0 ? problems : [`${where}: not found`]))
}

async function fromRegistry(
  env: Env,
  cwd: string,
  url: string | undefined,
  tried: string[],
): Promise<ServerFile | undefined> {
  const dir = registryDir(env)
  const entries = await registeredServers(env)
  const problems = await Promise.all(entries.map((server) => whyNotUsable(server, url)))
  const running = entries.filter((_, i) => !problems[i])
  if (running.length === 1) return running[0]
  const nearest = startedNearest(running, cwd)
  if (nearest.length === 1) return nearest[0]
  // instances of one sandbox answer alike: any of them will do
  const left = nearest.length > 0 ? nearest : running
  if (left.length > 1 && left.every((server) => sameSandbox(server, left[0]!))) return left[0]
  if (running.length > 1) throw severalServers(nearest, running, dir, cwd)
  // why each one was passed over: a server alive but not answering is not "not running"
  const found = entries.length === 0 ? 'none registered' : `none usable (${problems.join('; ')})`
  tried.push(`running servers registered in ${dir}: ${found}`)
}

/** Both serve one sandbox: the same database and schema (`serve --database`), with the same key. */
const sameSandbox = (a: ServerFile, b: ServerFile): boolean =>
  a.database !== undefined && a.database === b.database && a.schema === b.schema && a.api_key === b.api_key

/** The servers started from `cwd`, else from the nearest directory above it that any was started from. */
function startedNearest(servers: ServerFile[], cwd: string): ServerFile[] {
  for (const dir of upFrom(cwd)) {
    const here = servers.filter((server) => server.cwd === dir)
    if (here.length > 0) return here
  }
  return []
}

/**
 * Which servers are left to choose from and how to choose, from what the
 * registry knows: each one's URL (which `--url` takes, finding the key with
 * it), where and when it was started, and its data dir or database. Those
 * left are never all of one sandbox, which `fromRegistry` takes any of.
 */
function severalServers(
  nearest: ServerFile[],
  running: ServerFile[],
  registry: string,
  cwd: string,
): TablepayConfigError {
  // tied: the ones started from cwd, or from the nearest directory above it that any was; else all of them
  const tied = nearest.length > 0
  const candidates = tied ? nearest : running
  const from = candidates[0]!.cwd
  const withDir = candidates.find((s) => typeof s.data_dir === 'string')
  return new TablepayConfigError(
    'several_servers',
    [
      tied
        ? `${candidates.length} running tablepay servers were started from ${from} (registered in ${registry}):`
        : `${candidates.length} tablepay servers are running, none started from ${cwd} or above (registered in ${registry}):`,
      ...candidates.map((s) => `  - ${s.url} (pid ${s.pid}, ${whenAndWhere(s)}, ${whereItKeeps(s)})`),
      `Choose one by its URL with --url or TABLEPAY_URL (its key is in the registry), e.g. --url ${candidates[0]!.url}`,
      ...(withDir ? [`or one with a data dir by the dir, e.g. TABLEPAY_DATA=${withDir.data_dir}`] : []),
      ...(tied ? [] : ['or run the command in the directory a server was started from, or below it.']),
    ].join('\n'),
  )
}

/** Where and when a registered server was started, as far as its entry says (an earlier version's says neither). */
function whenAndWhere({cwd, started_at}: ServerFile): string {
  const where = cwd === undefined ? 'from a directory not recorded' : `from ${cwd}`
  return started_at ? `started ${where} at ${started_at}` : `started ${where}`
}

/** Where a registered server keeps its data, as far as its entry says. */
function whereItKeeps({data_dir: dataDir, database, schema}: ServerFile): string {
  if (typeof dataDir === 'string') return `data dir ${dataDir}`
  if (database !== undefined) return `database ${database}${schema && schema !== 'public' ? `, schema ${schema}` : ''}`
  // null: started without a data dir, the entry does not say how (an earlier version's with --database too);
  // absent: an earlier version's entry
  return dataDir === null ? 'with --memory or --database' : 'data dir not recorded'
}

/** Undefined when `server` is the one to use: for `url` if given, alive and answering; else why not. */
async function whyNotUsable(server: ServerFile, url: string | undefined): Promise<string | undefined> {
  if (url && !sameServer(normalize(server.url)!, url)) return `its server is at ${server.url}, not ${url}`
  if (!isAlive(server.pid)) return `its server (pid ${server.pid}) is not running`
  if (!(await answers(server.url))) return `its server (pid ${server.pid}) does not answer at ${server.url}`
}

/**
 * Whether `url` answers `/v1/health` as a tablepay server does. When nothing answers at all, `unanswered` is what
 * fetch threw (not a slow answer: a key's longer timeout may still reach it); when another kind of server answers,
 * `foreign` is the error a request to it would meet. Tablepay's answers carry its `X-Request-Id`, which a proxy
 * may drop, and say `{"status":"ok"}` or the API's error body.
 */
async function health(url: string): Promise<Health> {
  try {
    const at = `${url}/v1/health`
    const response = await fetch(at, {signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS)})
    const text = await response.text()
    const tablepay = response.headers.get('x-request-id')?.startsWith('req_') || TABLEPAY_HEALTH.test(text)
    if (tablepay) return {ok: response.ok, status: response.status}
    return {ok: false, foreign: new TablepayUnexpectedAnswerError(at, response.status, text)}
  } catch (error) {
    const slow = (error as Error).name === 'TimeoutError'
    return {ok: false, ...(slow ? {slow} : {unanswered: error as Error})}
  }
}

/**
 * What `/v1/health` at a URL told: tablepay's answer and its `status` (404 at a URL that is not the server's base,
 * 503 while it starts), another kind of server's (`foreign`), none (`unanswered`), or none within HEALTH_TIMEOUT_MS.
 */
interface Health {
  ok: boolean
  status?: number
  unanswered?: Error
  foreign?: Error
  slow?: boolean
}

/** What `health` found at `url`, as the list of places tried says it. */
function healthFound(url: string, {ok, status, foreign, slow}: Health): string {
  if (ok) return 'a server answers, but its keys are not known here'
  if (foreign) return 'a server answers, but not as tablepay does'
  if (slow) return `a server takes connections, but did not answer /v1/health within ${HEALTH_TIMEOUT_MS / 1000} s`
  if (status === 503) return 'a tablepay server answers, but is still starting'
  if (status !== undefined)
    return `a tablepay server answers, but its /v1/health is ${status} there: give its base URL, ${new URL(url).origin}`
  return 'no server answers'
}

/** The body of tablepay's health: ready, or the API's error body (`503 starting`). */
const TABLEPAY_HEALTH = /^\{"(status":"ok"\}$|error":\{"code":)/

const answers = async (url: string): Promise<boolean> => (await health(url)).ok

// compare URLs in one form
const normalize = (url: string | undefined): string | undefined => (url === undefined ? url : serverBase(url))

/**
 * Whether `given` names the server registered at `registered`: `localhost`, as users type it, names the loopback
 * address a server listens on, 127.0.0.1 unless told otherwise, or [::1] (`serve --host ::1`).
 */
const sameServer = (registered: string, given: string): boolean => {
  const ours = loopbacks(registered)
  return loopbacks(given).some((url) => ours.includes(url))
}

const loopbacks = (url: string): string[] =>
  LOCALHOST.test(url) ? ['127.0.0.1', '[::1]'].map((host) => url.replace(LOCALHOST, `$1${host}`)) : [url]

const LOCALHOST = /^(https?:\/\/)localhost(?=:|$)/i

/** The server file at `path`; undefined when there is none, or it cannot be read (another user's). */
async function readServerFile(path: string): Promise<ServerFile | undefined> {
  const text = await readFile(path, 'utf8').catch(() => undefined)
  if (text === undefined) return undefined
  try {
    return JSON.parse(text) as ServerFile
  } catch {
    const message = `${path} is not valid JSON: delete it, or pass --url and --api-key.`
    throw new TablepayConfigError('invalid_server_file', message)
  }
}
