import pg from 'pg'
import {afterEach, expect, it} from 'vitest'
import {startSeam, startServer} from '../../src/server/start.js'
import {createTestDatabase} from '../helpers/postgres.js'
import {firstKeys} from '../../src/domain/seeded-account.js'

// A start that loses its database once its port is open: docs/postgres.md, "When the database cannot be reached".

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

it('a start whose database drops once its port is open waits it out and serves once it is back, instead of ending', async () => {
  const db = await createTestDatabase()
  cleanup.push(() => db.drop())
  const admin = new pg.Client({connectionString: db.url})
  await admin.connect()
  cleanup.push(() => admin.end())
  // every session of the starting instance ends, as a restart of the database ends them, before it reads a record
  startSeam.afterListening = async () => {
    await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    )
  }
  cleanup.push(async () => (startSeam.afterListening = async () => {}))

  const server = await startServer({port: 0, host: '127.0.0.1', database: db.url})
  cleanup.push(() => server.close())
  const answer = await fetch(`${server.url}/v1/locations`, {
    headers: {authorization: `Bearer ${firstKeys(server.accounts).write}`},
  })
  expect([answer.status, ((await answer.json()) as {object: string}).object]).toEqual([200, 'list'])
})
