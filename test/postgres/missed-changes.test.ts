import pg from 'pg'
import {afterEach, expect, it} from 'vitest'
import {startServer} from '../../src/server/start.js'
import {checkWith} from '../helpers/checks.js'
import {createTestDatabase} from '../helpers/postgres.js'
import {call, makeTempDir, WRITE_KEY, writeSeed} from '../helpers/simulator.js'
import {openStream} from '../helpers/sse.js'

// What another instance told while this one's listening connection was lost never reaches it: docs/postgres.md,
// "Changes reach the listeners in commit order".

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

it('ends its live streams once its listening connection listens again: their clients read what they missed', async () => {
  const db = await createTestDatabase()
  cleanup.push(() => db.drop())
  const server = await startServer({
    port: 0,
    host: '127.0.0.1',
    database: db.url,
    seedFile: await writeSeed(await makeTempDir()),
  })
  cleanup.push(() => server.close())
  const check = await call(server.url, 'PUT', '/v1/checks/external/m1', {body: checkWith([['soup', 1, 500]])})
  expect(check.status).toBe(201)
  const account = await openStream(`${server.url}/v1/sim/stream`, {authorization: `Bearer ${WRITE_KEY}`})
  const page = await openStream(`${server.url}${new URL(check.body.guest_url).pathname}/stream`)
  cleanup.push(async () => [account, page].forEach((stream) => stream.close()))
  expect([account.status, page.status]).toEqual([200, 200])
  await page.until((text) => text.includes('event: check'))

  const admin = new pg.Client({connectionString: db.url})
  await admin.connect()
  cleanup.push(() => admin.end())
  await admin.query(
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'`,
  )
  // both end, as a client's own drop would, once the instance listens again
  await Promise.all([account.ended(), page.ended()])
  await expect
    .poll(async () => {
      const {rows} = await admin.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'`,
      )
      return rows[0].n
    })
    .toBe(1)
  // and a stream opened again is followed as before
  const again = await openStream(`${server.url}/v1/sim/stream`, {authorization: `Bearer ${WRITE_KEY}`})
  cleanup.push(async () => again.close())
  await call(server.url, 'PUT', '/v1/checks/external/m2', {body: checkWith([['tea', 1, 300]])})
  await again.until((text) => text.includes('"type":"check.created"'))
})
