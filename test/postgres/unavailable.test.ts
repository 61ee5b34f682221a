import {createServer, type Socket} from 'node:net'
import pg from 'pg'
import {afterEach, expect, it} from 'vitest'
import {TablepayClient} from '../../src/client/client.js'
import type {StreamMessage} from '../../src/client/stream.js'
import {PgStorage} from '../../src/postgres/storage.js'
import {type RunningServer, startServer} from '../../src/server/start.js'
import {checkWith} from '../helpers/checks.js'
import {databaseBehindRelay} from '../helpers/relay.js'
import {call, makeTempDir, WRITE_KEY, writeSeed} from '../helpers/simulator.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

it('a lost database answers 503 storage_unavailable, and the server answers again once it is back', async () => {
  const {db, link, url} = await databaseBehindRelay()
  cleanup.push(() => db.drop())
  cleanup.push(() => link.cut().catch(() => {}))
  const server: RunningServer = await startServer({
    port: 0,
    host: '127.0.0.1',
    database: url,
    seedFile: await writeSeed(await makeTempDir()),
  })
  cleanup.push(() => server.close())
  const push = (id: string) => call(server.url, 'PUT', `/v1/checks/external/${id}`, {body: checkWith([['a', 1, 100]])})
  expect((await push('t1')).status).toBe(201)

  await link.cut()
  const refused = await push('t2')
  expect(refused.status).toBe(503)
  expect(refused.body.error).toMatchObject({code: 'storage_unavailable'})
  expect(refused.body.error.message).toContain('cannot reach or write its database')
  // a read too: nothing is answered from a database the server cannot see
  expect((await call(server.url, 'GET', '/v1/checks/external/t1')).status).toBe(503)

  await link.open()
  await expect.poll(async () => (await push('t2')).status, {timeout: 10_000, interval: 200}).toBe(201)
  expect((await call(server.url, 'GET', '/v1/checks/external/t1')).status).toBe(200)
})

it('a database that turns read-only answers writes 503 storage_unavailable, never 500, and takes them again once writable', async () => {
  const {db, link, url} = await databaseBehindRelay()
  cleanup.push(() => db.drop())
  const admin = new pg.Client({connectionString: db.url})
  await admin.connect()
  const database = new URL(db.url).pathname.slice(1)
  cleanup.push(async () => {
    await admin.query(`ALTER DATABASE ${database} RESET default_transaction_read_only`)
    await admin.end()
  })
  cleanup.push(() => link.cut().catch(() => {}))
  const server = await startServer({
    port: 0,
    host: '127.0.0.1',
    database: url,
    seedFile: await writeSeed(await makeTempDir()),
  })
  cleanup.push(() => server.close())
  const push = (id: string) => call(server.url, 'PUT', `/v1/checks/external/${id}`, {body: checkWith([['a', 1, 100]])})
  expect((await push('t1')).status).toBe(201)

  // the sessions it opens from here on take no writes, as a standby's: its own end with the link
  await admin.query(`ALTER DATABASE ${database} SET default_transaction_read_only = on`)
  await link.cut()
  await link.open()
  const answers: number[] = []
  const refusedForWrites = async () => {
    const answer = await push('t2')
    answers.push(answer.status)
    return answer.status === 503 && String(answer.body.error.message).includes('(25006)')
  }
  await expect.poll(refusedForWrites, {timeout: 10_000, interval: 200}).toBe(true)
  expect(answers.every((status) => status === 503)).toBe(true)

  await admin.query(`ALTER DATABASE ${database} RESET default_transaction_read_only`)
  await expect.poll(async () => (await push('t2')).status, {timeout: 10_000, interval: 200}).toBe(201)
  expect((await call(server.url, 'GET', '/v1/checks/external/t1')).status).toBe(200)
})

it("once the database is back, the live stream hears the other instances' changes again", async () => {
  const {db, link, url} = await databaseBehindRelay()
  cleanup.push(() => db.drop())
  cleanup.push(() => link.cut().catch(() => {}))
  const seedFile = await writeSeed(await makeTempDir())
  const [behind, direct] = await Promise.all([
    startServer({port: 0, host: '127.0.0.1', database: url, seedFile}),
    startServer({port: 0, host: '127.0.0.1', database: db.url, seedFile}),
  ])
  cleanup.push(
    () => behind.close(),
    () => direct.close(),
  )
  await link.cut()
  await link.open()
  // the instance behind the relay answers again, and streams what the other one makes
  await expect.poll(async () => (await call(behind.url, 'GET', '/v1/locations')).status, {timeout: 10_000}).toBe(200)
  const stop = new AbortController()
  const messages = await new TablepayClient({url: `${behind.url}/v1`, apiKey: WRITE_KEY}).openStream({
    signal: stop.signal,
  })
  const seen: StreamMessage[] = []
  const reading = (async () => {
    for await (const message of messages) seen.push(message)
  })().catch(() => {})
  cleanup.push(async () => {
    stop.abort()
    await reading
  })
  // until the listening connection is back, pushes through the other instance reach no stream: push until one does
  let n = 0
  await expect
    .poll(
      async () => {
        await call(direct.url, 'PUT', `/v1/checks/external/s${++n}`, {body: checkWith([['a', 1, 100]])})
        return seen.some((message) => message.type === 'event')
      },
      {timeout: 10_000, interval: 300},
    )
    .toBe(true)
})

it('a database behind a dead network (connections that never open) fails the start after the connect timeout', async () => {
  // accepts and never answers, as a host behind a dropped route does
  const silent = createServer(() => {})
  const sockets = new Set<Socket>()
  silent.on('connection', (socket) => sockets.add(socket))
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
  cleanup.push(async () => {
    for (const socket of sockets) socket.destroy()
    await new Promise((resolve) => silent.close(resolve))
  })
  const {port} = silent.address() as {port: number}
  const started = Date.now()
  await expect(PgStorage.open({url: `postgres://u:p@127.0.0.1:${port}/db`, connectTimeoutMs: 300})).rejects.toThrow(
    `cannot connect to postgres://127.0.0.1:${port}/db`,
  )
  expect(Date.now() - started).toBeLessThan(5000)
})
