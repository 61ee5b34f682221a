import {join} from 'node:path'
import {startServer} from '../../src/server/start.js'
import {ROOT, WRITE_KEY} from './cli.js'

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
  const server = await startServer({port: 0, host: '127.0.0.1', seedFile: join(ROOT, 'fixtures', 'seed.json')})
  const url = `${server.url}/v1`
  return {url, env: {TABLEPAY_URL: url, TABLEPAY_API_KEY: WRITE_KEY}, stop: () => server.close()}
}
