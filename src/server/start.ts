import {rm, writeFile} from 'node:fs/promises'
import type {RequestListener} from 'node:http'
import {join, resolve} from 'node:path'
import {setTimeout} from 'node:timers/promises'
import type {Seed} from '../domain/seed-schema.js'
import {firstKeys} from '../domain/seeded-account.js'
import {DatabaseUnavailable, startFailure} from '../postgres/errors.js'
import {displayUrl} from '../shared/database-url.js'
import {registerServer, SERVER_FILE, type ServerFile} from '../shared/server-registry.js'
import {Store} from '../store/store.js'
import {answerStarting} from './internal/starting.js'
import {type Listener, listenOn} from './listen.js'
import {readImports} from './snapshot-imports.js'
import {createService, type SeededAccount, seedStore, type ServiceOptions, storageOf} from './service.js'

export type {SeededAccount}

export interface ServeOptions extends ServiceOptions {
  /** 0 picks a free port (use the returned `url`). Any other port is taken or the start fails: it never moves. */
  port: number
  host: string
  /** Data dir; undefined means everything stays in memory (`--memory`), or in `database`. */
  dataDir?: string
  /** A PostgreSQL URL (`--database`): the records live there, shared by every instance on it; `dataDir` is then ignored. */
  database?: string
  fsync?: boolean
  /** Start on a damaged data dir with what is intact, saving what is dropped beside it (docs/storage.md). */
  repair?: boolean
  /** Add it to the per-user registry of running servers, so clients in any directory find it (`tablepay serve` does). */
  register?: boolean
  /** Exported snapshots to store and restore into their accounts at start (`serve --import`). */
  imports?: readonly string[]
  /**
   * The URL clients reach the server at, when it is not the one it listens on (a proxy, a load balancer in front
   * of several instances): links in resources (`guest_url`) are made from it (`serve --public-url`).
   */
  publicUrl?: string
}

export interface RunningServer {
  /** Base URL without trailing slash and without /v1, e.g. http://127.0.0.1:4747 */
  url: string
  dataDir?: string
  /** The database the records live in, as it may be shown (no password), with `database`. */
  database?: string
  /** Every account with its keys and locations, for the banner. */
  accounts: SeededAccount[]
  /** True when this start created accounts or keys (first start, or --seed added some). */
  seeded: boolean
  /** The seed given (`seed`, or read from `seedFile`), checked; undefined when none was. */
  seed?: Seed
  /** Why the per-user registry of running servers could not list it (server-registry.ts), when it could not. */
  unlisted?: string
  /** The URL guest links are made from, when given (`publicUrl`). */
  publicUrl?: string
  /** The snapshots `imports` stored and restored, each with the account it went into. */
  imported: {name: string; account: string}[]
  close(): Promise<void>
}

/**
 * Runs once the port is open and before the app is made: the window in which every request is answered
 * `503 starting`. A test holds a start here to send requests into that window (test/server/starting.test.ts);
 * a server never sets it.
 */
export const startSeam = {afterListening: async (): Promise<void> => {}}

/**
 * Opens the store, seeds it, and serves the API: the whole of `tablepay
 * serve`, usable in process too.
 *
 * @example
 * const server = await startServer({port: 0, host: '127.0.0.1'})
 * await fetch(`${server.url}/v1/health`)
 * await server.close()
 */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const database = options.database
  const dataDir = options.dataDir === undefined || database !== undefined ? undefined : resolve(options.dataDir)
  // node-postgres loads only for a server that uses it: a data dir's start does not pay for it
  const store = database
    ? await (await import('../postgres/storage.js')).PgStorage.open({url: database})
    : await Store.open({dir: dataDir, fsync: options.fsync, repair: options.repair})
  let listener: Listener | undefined
  let service: Awaited<ReturnType<typeof createService>> | undefined
  try {
    const {seed, added: seeded} = await seedStore(store, options)
    // read and checked before the port opens: an unusable file leaves nothing begun
    const imports = await readImports(storageOf(store), options.imports ?? [], options.limits)

    // the app needs its own URL (for guest links), which is known only once listening: until it is made,
    // a request is answered 503 starting rather than reaching an app that does not exist yet
    let handler: RequestListener = answerStarting
    const listening = (listener = await listenOn(options.port, options.host, (req, res) => handler(req, res)))
    const {url} = listening
    await startSeam.afterListening()
    const {running, accounts} = await healing(store, async () => {
      const made = await createService(store, options.publicUrl ?? url, options, imports)
      try {
        return {running: made, accounts: await made.service.records.accounts()}
      } catch (error) {
        await made.close()
        throw error
      }
    })
    service = running
    handler = running.listener
    // instances of one sandbox are one server to the clients that find them (client/config.ts)
    const info = {...describeServer(url, accounts, dataDir), ...(store instanceof Store ? {} : store.sandbox)}
    if (dataDir) await writeFile(join(dataDir, SERVER_FILE), JSON.stringify(info, null, 2) + '\n', {mode: 0o600})
    const registered = options.register ? await registerServer(info) : undefined
    // only now: begun earlier, it would take turns with the rest of the start
    if (store instanceof Store) store.compactReplayed()

    return {
      url,
      dataDir,
      database: database === undefined ? undefined : displayUrl(database),
      accounts,
      seeded,
      seed,
      unlisted: registered?.unwritable,
      publicUrl: options.publicUrl,
      imported: imports.map(({name, account}) => ({name, account})),
      async close() {
        const stopping = running.close()
        await listening.close()
        await stopping
        if (dataDir) await rm(join(dataDir, SERVER_FILE), {force: true})
        await registered?.unregister()
        await store.close()
      },
    }
  } catch (error) {
    // a start that failed after listening leaves no port open and nothing running behind it (an in-process start, `exec`)
    await service?.close()
    await listener?.close()
    await store.close()
    // lost before the port opened (the seed, the imports' reads): said as a failed open says it, with what to do
    throw database && error instanceof DatabaseUnavailable ? startFailure(database, error) : error
  }
}

/** How often a start that lost its database looks whether the storage works again, in ms. */
const HEALED_EVERY_MS = 250

/**
 * Runs `step`, the start's part once the port is open, until it resolves. A database lost meanwhile is
 * waited out, requests answered `503 starting` until it is back, as a running instance heals
 * (docs/postgres.md, "When the database cannot be reached"); any other failure ends the start.
 */
async function healing<T>(store: {readonly failure: Error | undefined}, step: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await step()
    } catch (error) {
      if (!(error instanceof Error && error.name === 'DatabaseUnavailable')) throw error
      // a pause before each try, healed or not: a failure that comes back at once is not tried in a loop
      do await setTimeout(HEALED_EVERY_MS)
      while (store.failure)
    }
  }
}

/** What clients learn about this server from its `server.json` and its registry entry. */
function describeServer(url: string, accounts: SeededAccount[], dataDir: string | undefined): ServerFile {
  const {write, read} = firstKeys(accounts)
  return {
    url,
    pid: process.pid,
    api_key: write,
    read_key: read,
    data_dir: dataDir ?? null,
    cwd: process.cwd(),
    started_at: new Date().toISOString(),
  }
}
