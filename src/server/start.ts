import {rm, writeFile} from 'node:fs/promises'
import {join, resolve} from 'node:path'
import {toNodeListener} from 'h3'
import {listen} from 'listhen'
import type {Seed} from '../domain/schemas.js'
import {defaultSeed, readSeedFile, seedChanges} from '../store/seed.js'
import {Store} from '../store/store.js'
import {SchedulerClock} from '../webhooks/clock.js'
import {Dispatcher} from '../webhooks/dispatcher.js'
import {createApp} from './app.js'
import {CLOCK_SETTING} from './routes/clock.js'

export interface ServeOptions {
  /** 0 picks a free port. A busy port moves to another one: use the returned `url`. */
  port: number
  host: string
  /** Data dir; undefined means everything stays in memory (`--memory`). */
  dataDir?: string
  seedFile?: string
  fsync?: boolean
  /** Seconds to wait after each failed attempt (default SPEC's 1m, 5m, 30m, 2h, 8h, 24h). */
  retrySchedule?: number[]
  /** Scheduler clock speed: 60 makes a minute pass in a second. */
  timeScale?: number
  /** Dead deliveries in a row that disable an endpoint (default 10). */
  disableAfter?: number
  /** How long a receiver has to answer, in ms (default 10 s). */
  receiverTimeoutMs?: number
  /** Refuse plain-http endpoint URLs even for loopback hosts. */
  strictUrls?: boolean
}

export interface SeededAccount {
  id: string
  name: string
  locations: {id: string; name: string}[]
  api_keys: {key: string; scopes: ('read' | 'write')[]}[]
}

export interface RunningServer {
  /** Base URL without trailing slash and without /v1, e.g. http://127.0.0.1:4747 */
  url: string
  dataDir?: string
  /** Every account with its keys and locations, for the banner. */
  accounts: SeededAccount[]
  /** True when this start created accounts or keys (first start, or --seed added some). */
  seeded: boolean
  close(): Promise<void>
}

/** The file client commands read to find the server and a key without flags. */
export const SERVER_FILE = 'server.json'

function describeAccounts(store: Store): SeededAccount[] {
  const {accounts, locations, api_keys} = store.tables
  return [...accounts.all()].map((account) => ({
    id: account.id,
    name: account.name,
    locations: locations.idsOf(account.id).map((id) => ({id, name: locations.get(id)!.name})),
    api_keys: api_keys.idsOf(account.id).map((key) => ({key, scopes: api_keys.get(key)!.scopes})),
  }))
}

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
  const dataDir = options.dataDir === undefined ? undefined : resolve(options.dataDir)
  const store = await Store.open({dir: dataDir, fsync: options.fsync})
  try {
    const now = new Date().toISOString()
    let seed: Seed | undefined = options.seedFile ? await readSeedFile(options.seedFile) : undefined
    if (!seed && store.tables.accounts.size === 0) seed = defaultSeed()
    const changes = seed ? seedChanges(store, seed, now) : []
    await store.commit(changes)

    // the app needs its own URL (for guest links), which is known only once listening
    let handler: ReturnType<typeof toNodeListener> | undefined
    const listener = await listen((req, res) => handler!(req, res), {
      port: options.port,
      hostname: options.host,
      showURL: false,
      autoClose: false,
      isTest: true,
      qr: false,
    })
    const url = listener.url.replace(/\/$/, '')
    const clock = new SchedulerClock(options.timeScale ?? 1, store.tables.settings.get(CLOCK_SETTING)?.value ?? 0)
    const dispatcher = new Dispatcher(store, clock, {
      schedule: options.retrySchedule,
      disableAfter: options.disableAfter,
      timeoutMs: options.receiverTimeoutMs,
    })
    handler = toNodeListener(createApp(store, {baseUrl: url, clock, dispatcher, strictUrls: options.strictUrls}))
    const accounts = describeAccounts(store)
    if (dataDir) await writeServerFile(dataDir, url, accounts)

    return {
      url,
      dataDir,
      accounts,
      seeded: changes.length > 0,
      async close() {
        await listener.close()
        await dispatcher.close()
        if (dataDir) await rm(join(dataDir, SERVER_FILE), {force: true})
        await store.close()
      },
    }
  } catch (error) {
    await store.close()
    throw error
  }
}

async function writeServerFile(dataDir: string, url: string, accounts: SeededAccount[]): Promise<void> {
  const keys = accounts[0]?.api_keys ?? []
  const info = {
    url,
    pid: process.pid,
    api_key: keys.find((k) => k.scopes.includes('write'))?.key,
    read_key: keys.find((k) => !k.scopes.includes('write'))?.key,
  }
  await writeFile(join(dataDir, SERVER_FILE), JSON.stringify(info, null, 2) + '\n', {mode: 0o600})
}
