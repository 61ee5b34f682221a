import {join} from 'node:path'
import {Parser} from '@oclif/core'
import {serveFlags} from '../../src/cli/flags/serve.js'
import {outputFor} from '../../src/cli/output.js'
import {type ServeFlags, startServing} from '../../src/serve/run.js'
import {type RunningServer, startServer} from '../../src/server/start.js'
import {ROOT, WRITE_KEY} from './cli.js'
import {createTestDatabase, onPostgres} from './postgres.js'

export interface ApiServer {
  /** The API base, with /v1, as `tablepay serve` announces it. */
  url: string
  /** The settings a client needs for this server. */
  env: Record<string, string>
  stop(): Promise<void>
}

/**
 * The simulator as `startCliServer()` starts it (in memory, seeded with
 * fixtures/seed.json), in this process: for tests of the commands that talk
 * to it, which need a server and not `tablepay serve` itself
 * (test/commands/serve.test.ts covers that).
 *
 * @example
 * const server = await startApiServer()
 * const {json} = cliFor(server)
 */
export async function startApiServer(): Promise<ApiServer> {
  // in the `postgres` project of vitest.config.ts, on a database of its own
  const database = onPostgres ? await createTestDatabase() : undefined
  const seedFile = join(ROOT, 'fixtures', 'seed.json')
  const server = await startServer({port: 0, host: '127.0.0.1', seedFile, database: database?.url})
  return apiServer(server, async () => database?.drop())
}

/**
 * `tablepay serve --port 0 --memory --seed fixtures/seed.json ARGS`, in this process: ARGS parsed by
 * oclif's parser with serve's own flags, and started by the function the command starts them with
 * (startServing). For what a serve flag makes the API do; what `serve` prints, and how it stops, is
 * test/commands/serve.test.ts's.
 *
 * @example
 * const server = await startServeFlags(['--retry-schedule', '1s,2s'])
 */
export async function startServeFlags(args: string[]): Promise<ApiServer> {
  const argv = ['--port', '0', '--memory', '--seed', 'fixtures/seed.json', ...args]
  const {flags} = await Parser.parse(argv, {flags: serveFlags, strict: true})
  return apiServer(await startServing(flags as ServeFlags, outputFor(false), {register: false}))
}

function apiServer(server: RunningServer, after?: () => Promise<unknown>): ApiServer {
  const url = `${server.url}/v1`
  const stop = async () => {
    await server.close()
    await after?.()
  }
  return {url, env: {TABLEPAY_URL: url, TABLEPAY_API_KEY: WRITE_KEY}, stop}
}
