import {createServer, type Socket} from 'node:net'
import pg from 'pg'
import {afterEach, expect, it} from 'vitest'
import {TablepayClient} from '../../src/client/client.js'
import type {StreamMessage} from '../../src/client/stream.js'
import {PgStorage} from '../../src/postgres/storage.js'
import {type RunningServer, startServer} from '../../src/server/start.js'
import {checkWith} from '../helpers/checks.js'
import {connectAdmin, maintenanceUrl} from '../helpers/postgres.js'
import {databaseBehindRelay} from '../helpers/relay.js'
import {call, makeTempDir, startServerOn, WRITE_KEY, writeSeed} from '../helpers/simulator.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

it('a lost database answers 503 storage_unavailable, and the server answers again once it is back', async () => {
  const {db, link, url} = await databaseBehindRelay()
  cleanup.push(() => db.drop())
  cleanup.push(() => link.cut().catch(() => {}))
  const server: RunningServer = await startServerOn(url)
  cleanup.push(() => server.close())
  const push = (id: string) => call(server.url, 'PUT', `/v1/checks/external/${id}`, {body: checkWith([['a', 1, 100]])})
  expect((await push('t1')).status).toBe(201)

  await link.cut()
  const refused = await push('t2')
  expect(refused.status).toBe(503)
  expect(refused.body.error).toMatchObject({code: 'storage_unavailable'})
  expect(refused.body.error.message).toContain('cannot use its database')
  // a read too: nothing is answered from a database the server cannot see
  expect((await call(server.url, 'GET', '/v1/checks/external/t1')).status).toBe(503)

  await link.open()
  await expect.poll(async () => (await push('t2')).status, {timeout: 10_000, interval: 200}).toBe(201)
  expect((await call(server.url, 'GET', '/v1/checks/external/t1')).status).toBe(200)
})

/**
 * A server alone on a new database behind a relay, and that database's URL past the relay (`direct`). With
 * `setting` (a setting of the database's, as `statement_timeout = '1s'`), `set` makes it hold for the server's
 * sessions (its own end with the link and it connects again) and `reset` ends it, as the end of the test does.
 * `push(id, quantity)` pushes a check.
 */
async function serverBehindRelay(setting = '') {
  const {db, link, url} = await databaseBehindRelay()
  cleanup.push(() => db.drop())
  const admin = new pg.Client({connectionString: db.url})
  await admin.connect()
  const database = new URL(db.url).pathname.slice(1)
  const name = setting.split(' ')[0]
  cleanup.push(async () => {
    if (name) await admin.query(`ALTER DATABASE ${database} RESET ${name}`)
    await admin.end()
  })
  cleanup.push(() => link.cut().catch(() => {}))
  const server = await startServerOn(url)
  cleanup.push(() => server.close())
  const push = (id: string, quantity = 1) =>
    call(server.url, 'PUT', `/v1/checks/external/${id}`, {body: checkWith([['a', quantity, 100]])})
  return {
    server,
    direct: db.url,
    push,
    async set(): Promise<void> {
      await admin.query(`ALTER DATABASE ${database} SET ${setting}`)
      await link.cut()
      await link.open()
    },
    reset: () => admin.query(`ALTER DATABASE ${database} RESET ${name}`),
  }
}

/** Pushes with `push` until one answers 503 for the SQLSTATE `code`; resolves with every status answered. */
async function refusedFor(code: string, push: () => ReturnType<typeof call>): Promise<number[]> {
  const answers: number[] = []
  const refused = async () => {
    const answer = await push()
    answers.push(answer.status)
    return answer.status === 503 && new RegExp(`\\(${code}[):]`).test(answer.body.error.message)
  }
  await expect.poll(refused, {timeout: 10_000, interval: 200}).toBe(true)
  return answers
}

/**
 * A server on a database of its own behind a relay, its changing pushes of one check, and an administrator's
 * session on the `postgres` database, from where a test renames or closes the server's (`database`).
 */
async function serverAndAdministrator() {
  const {db, link, url} = await databaseBehindRelay()
  cleanup.push(() => db.drop())
  cleanup.push(() => link.cut().catch(() => {}))
  const server = await startServerOn(url)
  cleanup.push(() => server.close())
  let version = 0
  const push = () =>
    call(server.url, 'PUT', '/v1/checks/external/t1', {body: checkWith([['a', 1, 100]], {version: ++version})})
  const admin = await connectAdmin(maintenanceUrl(db.url))
  cleanup.push(() => admin.end())
  return {link, push, admin, database: new URL(db.url).pathname.slice(1)}
}

it('a database that turns read-only answers writes 503 storage_unavailable, never 500, and takes them again once writable', async () => {
  const {server, push, set, reset} = await serverBehindRelay('default_transaction_read_only = on')
  expect((await push('t1')).status).toBe(201)
  // as a standby's sessions
  await set()
  expect(await refusedFor('25006', () => push('t2'))).toSatisfy((answers: number[]) => answers.every((s) => s === 503))
  await reset()
  await expect.poll(async () => (await push('t2')).status, {timeout: 10_000, interval: 200}).toBe(201)
  expect((await call(server.url, 'GET', '/v1/checks/external/t1')).status).toBe(200)
})

it("a statement the database's statement_timeout cancels answers 503 storage_unavailable, never 500", async () => {
  const {direct, push, set, reset} = await serverBehindRelay("statement_timeout = '200ms'")
  expect((await push('t1')).status).toBe(201)
  await set()
  // a lock held past the timeout: the push that waits for it is cancelled
  const holder = new pg.Client({connectionString: direct})
  await holder.connect()
  cleanup.push(() => holder.end())
  await holder.query(
    "SET statement_timeout = 0; BEGIN; SELECT 1 FROM checks WHERE doc->>'external_id' = 't1' FOR UPDATE",
  )
  expect(await refusedFor('57014', () => push('t1', 2))).toSatisfy((answers: number[]) =>
    answers.every((s) => s === 503),
  )
  await holder.query('COMMIT')
  await reset()
  await expect.poll(async () => (await push('t1', 2)).status, {timeout: 10_000, interval: 200}).toBe(200)
})

it('a database renamed while it runs answers 503 saying the database does not exist, and again once it is back', async () => {
  const {link, push, admin, database} = await serverAndAdministrator()
  expect((await push()).status).toBe(201)
  // an administrator renames it: the server's sessions end and its next ones name a database no longer there
  const rename = async (from: string, to: string) => {
    await link.cut()
    await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${from}'`)
    await admin.query(`ALTER DATABASE ${from} RENAME TO ${to}`)
    await link.open()
  }
  await rename(database, `${database}_away`)
  cleanup.push(() => admin.query(`ALTER DATABASE IF EXISTS ${database}_away RENAME TO ${database}`).catch(() => {}))
  await refusedFor('3D000', push)
  expect((await push()).body.error.message).toContain('(3D000: the database does not exist')
  await rename(`${database}_away`, database)
  await expect.poll(async () => (await push()).status, {timeout: 10_000, interval: 200}).toBe(200)
})

it('a database closed to new sessions while it runs answers 503 saying so, not what ended the sessions, and heals', async () => {
  const {push, admin, database} = await serverAndAdministrator()
  expect((await push()).status).toBe(201)
  // an administrator closes it to new sessions, then ends those open: the first failure the server meets is
  // its sessions ended (57P01), and every try after it is refused (55000)
  const allow = async (allowed: boolean) => {
    await admin.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS ${allowed}`)
    await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${database}'`)
  }
  await allow(false)
  cleanup.push(() => admin.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`).catch(() => {}))
  const answers = await refusedFor('55000', push)
  expect(answers.filter((status) => status !== 503)).toEqual([])
  expect((await push()).body.error.message).toContain('(55000: the database takes no new sessions: ALLOW_CONNECTIONS')
  await allow(true)
  await expect.poll(async () => (await push()).status, {timeout: 10_000, interval: 200}).toBe(200)
})

it('tables dropped while it runs answer 503 storage_unavailable, never 500, saying to start it again', async () => {
  const {direct, push} = await serverBehindRelay()
  expect((await push('t1')).status).toBe(201)
  // a teammate resets the sandbox under it
  const admin = new pg.Client({connectionString: direct})
  await admin.connect()
  await admin.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public')
  await admin.end()
  const answer = await push('t2')
  expect(answer.status).toBe(503)
  expect(answer.body.error).toMatchObject({code: 'storage_unavailable'})
  expect(answer.body.error.message).toContain("tablepay's tables are gone from its database (42P01)")
  expect(answer.body.error.message).toContain('Start `tablepay serve` again')
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
  const client = new TablepayClient({url: `${behind.url}/v1`, apiKey: WRITE_KEY})
  const seen: StreamMessage[] = []
  // one opened before the listening connection is back ends once it is (docs/postgres.md): opened again, as a
  // client does after any drop
  const reading = (async () => {
    while (!stop.signal.aborted)
      for await (const message of await client.openStream({signal: stop.signal})) seen.push(message)
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
