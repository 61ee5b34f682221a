import {connect, createServer, type Server, type Socket} from 'node:net'
import pg from 'pg'
import {afterEach, expect, it} from 'vitest'
import {PgStorage} from '../../src/postgres/storage.js'
import {freePort} from '../helpers/ports.js'
import {createTestDatabase, type TestDatabase, testPool} from '../helpers/postgres.js'
import {databaseBehindRelay} from '../helpers/relay.js'
import {call, startServerOn} from '../helpers/simulator.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

/**
 * A relay to `db` that can refuse new connections while it keeps the listening sessions open, as a database
 * whose new connections fail does to an instance that had them: the instance still hears the others' changes
 * (so it keeps the API keys it read), and every statement the pool sends needs a new connection.
 */
async function relayKeepingListeners(db: TestDatabase) {
  const target = new URL(db.url)
  const port = await freePort()
  const links = new Map<Socket, {upstream: Socket; sent: string}>()
  let server: Server | undefined
  const open = async () => {
    server = createServer((client) => {
      const upstream = connect(Number(target.port), target.hostname)
      const link = {upstream, sent: ''}
      links.set(client, link)
      for (const socket of [client, upstream]) {
        socket.on('error', () => {})
        socket.on('close', () => links.delete(client))
      }
      client.on('data', (chunk: Buffer) => (link.sent += chunk.toString('latin1')))
      client.pipe(upstream).pipe(client)
    })
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve))
  }
  await open()
  const url = new URL(db.url)
  url.port = String(port)
  return {
    url: url.toString(),
    open,
    /**
     * Refuses new connections, and drops those open but the ones that sent LISTEN; `closed` resolves once
     * those have ended too.
     */
    refuseNew() {
      const closed = new Promise<void>((resolve) => server!.close(() => resolve()))
      for (const [client, {upstream, sent}] of links)
        if (!sent.includes('LISTEN')) for (const socket of [client, upstream]) socket.destroy()
      return {closed}
    },
    async close() {
      server?.close()
      for (const [client, {upstream}] of links) for (const socket of [client, upstream]) socket.destroy()
    },
  }
}

it('a request a fault matches, when the database takes no new connection, is answered 503 storage_unavailable, and the instance heals', async () => {
  const db = await createTestDatabase()
  cleanup.push(() => db.drop())
  const link = await relayKeepingListeners(db)
  cleanup.push(() => link.close())
  const server = await startServerOn(link.url, {
    // no request log: its notes to the other instances would be statements of their own
    requestLog: 0,
  })
  cleanup.push(() => server.close())
  // its strike is counted in the database, whichever instance the request reaches (docs/postgres.md)
  const fault = await call(server.url, 'POST', '/v1/sim/faults', {
    body: {match: {method: 'GET', path: '/v1/locations'}, delay_ms: 1, times: null},
  })
  expect(fault.status).toBe(201)
  const struck = await call(server.url, 'GET', '/v1/locations')
  expect(struck.status).toBe(200)
  expect(struck.headers.get('x-tablepay-fault')).toBe(fault.body.id)

  const {closed} = link.refuseNew()
  const refused = await call(server.url, 'GET', '/v1/locations')
  expect(refused.status, refused.text).toBe(503)
  expect(refused.body.error).toMatchObject({code: 'storage_unavailable'})
  // and the instance lets go of the connections it still had, as a smart shutdown waits for it to
  await closed

  await link.open()
  await expect.poll(async () => (await call(server.url, 'GET', '/v1/locations')).status, {timeout: 10_000}).toBe(200)
})

it('a delivery claim that finds the database gone makes the storage fail, as a unit does, until it is back', async () => {
  const {db, link, url} = await databaseBehindRelay()
  cleanup.push(() => db.drop())
  cleanup.push(() => link.cut().catch(() => {}))
  const storage = await PgStorage.open({url})
  cleanup.push(() => storage.close())

  await link.cut()
  await expect(storage.shared!.claim('dlv_any', Date.now(), 40_000)).rejects.toMatchObject({
    name: 'DatabaseUnavailable',
  })
  expect(storage.failure?.name).toBe('DatabaseUnavailable')

  await link.open()
  await expect.poll(() => storage.failure, {timeout: 10_000}).toBeUndefined()
})

it('a statement outside a unit that finds the server full (too many clients) makes the storage fail, as a unit does, until a connection opens', async () => {
  const db = await createTestDatabase()
  cleanup.push(() => db.drop())
  const admin = testPool(db.url)
  cleanup.push(() => admin.end())
  // a role's CONNECTION LIMIT binds its sessions as max_connections binds everyone's: past it, 53300
  const role = `tp_full_${process.pid}`
  await admin.query(`CREATE ROLE ${role} LOGIN CONNECTION LIMIT 8`)
  cleanup.push(() => admin.query(`DROP OWNED BY ${role}; DROP ROLE ${role}`))
  await admin.query(
    `GRANT ALL ON SCHEMA public TO ${role}; GRANT ALL ON ALL TABLES IN SCHEMA public TO ${role}; GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO ${role}`,
  )
  const url = new URL(db.url)
  url.username = role
  const storage = await PgStorage.open({url: url.toString()})
  cleanup.push(() => storage.close())
  // the role's other connections taken by someone else: the pool can open no more
  const others: pg.Client[] = []
  cleanup.push(() => Promise.all(others.map((client) => client.end())))
  for (;;) {
    const client = new pg.Client({connectionString: url.toString()})
    client.on('error', () => {})
    const refused = await client.connect().then(
      () => undefined,
      (error: unknown) => error,
    )
    if (refused) {
      expect(refused).toMatchObject({code: '53300'})
      break
    }
    others.push(client)
  }

  // asked at once, the reads need more connections than the pool has open
  const reads = await Promise.allSettled(Array.from({length: 12}, (_, i) => storage.get('events', `evt_${i}`)))
  const failed = reads.flatMap((read) => (read.status === 'rejected' ? [read.reason] : []))
  expect(failed.length).toBeGreaterThan(0)
  for (const reason of failed) expect(reason).toMatchObject({name: 'DatabaseUnavailable', code: '53300'})
  // the 503 says what to change: the database is up, but full
  expect(failed[0].meaning).toMatch(/^53300: it has no connection left: raise max_connections/)
  expect(storage.failure?.name).toBe('DatabaseUnavailable')

  await Promise.all(others.splice(0).map((client) => client.end()))
  await expect.poll(() => storage.failure, {timeout: 10_000}).toBeUndefined()
})
