import {type RunningServer, startServer} from '../../src/server/start.js'
import {createTestDatabase} from './postgres.js'
import {makeTempDir, writeSeed} from './simulator.js'

export interface TwoInstances {
  a: RunningServer
  b: RunningServer
  /** Stops both, then drops their database. */
  stop(): Promise<void>
}

/**
 * Two instances of one sandbox, as behind a load balancer: two servers on
 * one new database (test/helpers/postgres.ts), seeded alike.
 *
 * @example
 * ;({a, b, stop} = await startTwoInstances())
 */
export async function startTwoInstances(): Promise<TwoInstances> {
  const db = await createTestDatabase()
  const seedFile = await writeSeed(await makeTempDir())
  const start = () => startServer({port: 0, host: '127.0.0.1', database: db.url, seedFile})
  const [a, b] = await Promise.all([start(), start()])
  return {
    a,
    b,
    async stop() {
      await Promise.all([a.close(), b.close()])
      await db.drop()
    },
  }
}
