import {join} from 'node:path'
import {startServer} from '../../src/server/start.js'
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
  const url = `${server.url}/v1`
  const stop = async () => {
    await server.close()
    await database?.drop()
  }
  return {url, env: {TABLEPAY_URL: url, TABLEPAY_API_KEY: WRITE_KEY}, stop}
}
