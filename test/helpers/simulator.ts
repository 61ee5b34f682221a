import {readdir, readFile, rm, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import type {Seed} from '../../src/domain/seed-schema.js'
import {type RunningServer, type ServeOptions, startServer} from '../../src/server/start.js'
import {createTestDatabase, onPostgres, storedIn} from './postgres.js'
import {rawRequest} from './raw-http.js'
import {makeTempDir} from './temp-dirs.js'

export {makeTempDir}

/** Two restaurants, so tests can check that one never sees the other. */
export const TEST_SEED: Seed = {
  accounts: [
    {
      id: 'acct_demo',
      name: 'Demo Bistro',
      locations: [{id: 'loc_main', name: 'Main Room', timezone: 'Europe/Paris', currency: 'EUR'}],
      api_keys: [
        {key: 'tp_test_demo_write', scopes: ['read', 'write']},
        {key: 'tp_test_demo_read', scopes: ['read']},
      ],
    },
    {
      id: 'acct_other',
      name: 'Other Diner',
      locations: [
        {id: 'loc_other_a', name: 'Downstairs', timezone: 'America/New_York', currency: 'USD'},
        {id: 'loc_other_b', name: 'Upstairs', timezone: 'America/New_York', currency: 'USD'},
      ],
      api_keys: [{key: 'tp_test_other_write', scopes: ['read', 'write']}],
    },
  ],
}
export const WRITE_KEY = 'tp_test_demo_write'
export const READ_KEY = 'tp_test_demo_read'
export const OTHER_KEY = 'tp_test_other_write'

export interface Answer {
  status: number
  headers: Headers
  text: string
  body: any
}

export interface TestServer {
  url: string
  dataDir: string
  /** The database the server keeps its records in, in the `postgres` project: a test may open it itself. */
  database?: string
  server: RunningServer
  /** One API call; `body` is sent as JSON unless it is a string. */
  api(
    method: string,
    path: string,
    options?: {body?: unknown; key?: string | null; headers?: Record<string, string>},
  ): Promise<Answer>
  /**
   * What the server has made durable, as text: its journal on a data dir,
   * every record in its database on PostgreSQL. Compare it before and after a
   * request to see whether the request wrote anything.
   */
  stored(): Promise<string>
  /** Stops the server; the data dir stays for a restart. */
  stop(): Promise<void>
  /** Starts again on the same data dir, with `serve` options added to the first start's. */
  restart(serve?: Partial<ServeOptions>): Promise<void>
  /** Stops the server and removes the data dir. */
  close(): Promise<void>
}

export async function writeSeed(dir: string, seed: Seed = TEST_SEED): Promise<string> {
  const path = join(dir, 'seed.json')
  await writeFile(path, JSON.stringify(seed))
  return path
}

export async function call(
  url: string,
  method: string,
  path: string,
  options: Parameters<TestServer['api']>[2] = {},
): Promise<Answer> {
  const {body, key = WRITE_KEY, headers = {}} = options
  const sent: Record<string, string> = {...(key ? {authorization: `Bearer ${key}`} : {}), ...headers}
  const text = body === undefined || typeof body === 'string' ? body : JSON.stringify(body)
  if (text !== undefined) sent['content-type'] ??= 'application/json'
  // node:http rather than fetch, as a POS's client would send it: fetch's streams cost the suite seconds of CPU.
  // The URL is parsed as fetch parses it (dot segments resolved); rawRequest sends a path byte for byte.
  const target = new URL(url + path)
  const answer = await rawRequest(target.origin, method, target.pathname + target.search, {headers: sent, body: text})
  const answerHeaders = new Headers()
  for (const [name, value] of Object.entries(answer.headers))
    for (const one of [value ?? []].flat()) answerHeaders.append(name, one)
  return {status: answer.status, headers: answerHeaders, text: answer.text, body: answer.body}
}

/** Every journal line in `dataDir`, in order. */
async function journalOf(dataDir: string): Promise<string> {
  const files = (await readdir(dataDir)).filter((f) => f.startsWith('journal.')).sort()
  const texts = await Promise.all(files.map((f) => readFile(join(dataDir, f), 'utf8')))
  return texts.join('')
}

/** A real server on a free loopback port, seeded with TEST_SEED, on the database at `url`; `close` it. */
export async function startServerOn(url: string, more: Partial<ServeOptions> = {}): Promise<RunningServer> {
  const seedFile = await writeSeed(await makeTempDir())
  return startServer({port: 0, host: '127.0.0.1', database: url, seedFile, ...more})
}

/**
 * A real server on a free loopback port with a temp data dir, seeded with
 * TEST_SEED; in the `postgres` project of vitest.config.ts, on a database of
 * its own instead, which a restart finds again.
 */
export async function startTestServer(
  options: {memory?: boolean; serve?: Partial<ServeOptions>} = {},
): Promise<TestServer> {
  const root = await makeTempDir()
  const dataDir = join(root, 'data')
  const seedFile = await writeSeed(root)
  const database = onPostgres ? await createTestDatabase() : undefined
  const store = database ? {database: database.url} : {dataDir: options.memory ? undefined : dataDir}
  const start = (more?: Partial<ServeOptions>) =>
    startServer({port: 0, host: '127.0.0.1', ...store, seedFile, ...options.serve, ...more})
  let server = await start()
  const handle: TestServer = {
    get url() {
      return server.url
    },
    dataDir,
    database: database?.url,
    get server() {
      return server
    },
    api: (method, path, opts) => call(server.url, method, path, opts),
    stored: () => (database ? storedIn(database.url) : journalOf(dataDir)),
    stop: () => server.close(),
    async restart(serve) {
      server = await start(serve)
    },
    async close() {
      await server.close()
      await rm(root, {recursive: true, force: true})
      await database?.drop()
    },
  }
  return handle
}
