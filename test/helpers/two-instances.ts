import {afterAll, beforeAll, beforeEach, expect} from 'vitest'
import {type RunningServer, startServer} from '../../src/server/start.js'
import {createTestDatabase} from './postgres.js'
import {call, makeTempDir, writeSeed} from './simulator.js'

export interface TwoInstances {
  a: RunningServer
  b: RunningServer
}

/**
 * Two instances of one sandbox, as behind a load balancer, for the tests of
 * a file: two servers on one new database (test/helpers/postgres.ts),
 * seeded alike, started before the first test (`use` gets them), stopped
 * after the last, the account reset before each test.
 *
 * @example
 * let a: RunningServer, b: RunningServer
 * useTwoInstances((servers) => ({a, b} = servers))
 */
export function useTwoInstances(use: (servers: TwoInstances) => void): void {
  let stop = async () => {}
  let servers: TwoInstances | undefined
  beforeAll(async () => {
    const db = await createTestDatabase()
    const seedFile = await writeSeed(await makeTempDir())
    const start = () => startServer({port: 0, host: '127.0.0.1', database: db.url, seedFile})
    const [a, b] = await Promise.all([start(), start()])
    servers = {a, b}
    stop = async () => {
      await Promise.all([a.close(), b.close()])
      await db.drop()
    }
    use(servers)
  })
  afterAll(() => stop())
  beforeEach(async () => {
    expect((await call(servers!.a.url, 'POST', '/v1/sim/reset')).status).toBe(200)
  })
}
