import {afterEach, expect, it} from 'vitest'
import type {EventRecord} from '../../src/domain/records.js'
import {connecting, Connection} from '../../src/postgres/pool.js'
import {PgStorage} from '../../src/postgres/storage.js'
import {checkWith} from '../helpers/checks.js'
import {startCliServer} from '../helpers/cli.js'
import {connectAdmin, untilLockWaited} from '../helpers/postgres.js'
import {databaseBehindRelay} from '../helpers/relay.js'
import {call} from '../helpers/simulator.js'

// A database that answers nothing while its connections stay up (its processes stopped with `kill -STOP`, or a
// path that stops delivering), which TCP keepalives do not see: docs/postgres.md, "When the database cannot be
// reached".

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

/** A new database behind a relay, both gone at the end of the test. */
async function behindRelay() {
  const behind = await databaseBehindRelay()
  cleanup.push(() => behind.db.drop())
  cleanup.push(() => behind.link.cut().catch(() => {}))
  return behind
}

const EVENT = {id: 'evt_1', account_id: 'acct_a'} as unknown as EventRecord

/** What a 503 says of a database that answers nothing. */
const SILENT = 'timeout expired: it answers nothing'

it('statements under way and waiting for a connection fail once a new connection does not open within the connect timeout, and the storage heals when the database answers again', async () => {
  const {link, url} = await behindRelay()
  const storage = await PgStorage.open({url, connectTimeoutMs: 2000})
  cleanup.push(() => storage.close())
  await storage.unit(async (tx) => tx.put('events', EVENT.id, EVENT))

  link.freeze()
  const frozenAt = Date.now()
  // more units than the pool has connections, so some wait for one, and a read outside any unit
  const units = Array.from({length: 8}, () => storage.unit((tx) => tx.get('events', EVENT.id)))
  const settledAt: number[] = []
  const waits = [...units, storage.get('events', EVENT.id)].map((wait) =>
    wait.finally(() => settledAt.push(Date.now())),
  )
  const outcomes = await Promise.allSettled(waits)
  // the watch opens a connection every 5 s: within that and the connect timeout
  expect(Date.now() - frozenAt).toBeLessThan(5000 + 2000 + 3000)
  // together: none waits for a connection to open, or to time out (2 s), after the others failed; those under way
  // wait only for the look at the listening connection (1 s)
  expect(Math.max(...settledAt) - Math.min(...settledAt)).toBeLessThan(1000 + 500)
  for (const outcome of outcomes) expect(outcome).toMatchObject({reason: {name: 'DatabaseUnavailable'}})
  // the statements the cut failed say nothing of the database: what a 503 says is still the silence
  expect(storage.failure).toMatchObject({name: 'DatabaseUnavailable', meaning: SILENT})
  // found silent, it is sent nothing more: a read fails at once, not after the connect timeout
  const readAt = Date.now()
  await expect(storage.get('events', EVENT.id)).rejects.toMatchObject({name: 'DatabaseUnavailable'})
  expect(Date.now() - readAt).toBeLessThan(1000)

  link.thaw()
  await expect.poll(() => storage.failure, {timeout: 10_000}).toBeUndefined()
  expect(await storage.unit((tx) => tx.get('events', EVENT.id))).toEqual(EVENT)
})

/**
 * A storage behind a relay (connect timeout 500 ms) whose read waits on a table another session locks (as a
 * migration of the user's own would), with no lock timeout, until `release`.
 */
async function readWaitingOnLock() {
  const {db, link, url} = await behindRelay()
  const storage = await PgStorage.open({url, connectTimeoutMs: 500})
  cleanup.push(() => storage.close())
  await storage.unit(async (tx) => tx.put('events', EVENT.id, EVENT))
  const admin = await connectAdmin(db.url)
  cleanup.push(() => admin.end())
  const holder = await connectAdmin(db.url)
  cleanup.push(() => holder.end())
  await holder.query('BEGIN; LOCK TABLE events IN ACCESS EXCLUSIVE MODE')
  let settled = false
  const read = storage.get('events', EVENT.id)
  void read.finally(() => (settled = true)).catch(() => {})
  await untilLockWaited(admin, 'the read')
  return {
    link,
    admin,
    storage,
    read,
    settled: () => settled,
    release: () => holder.query('COMMIT'),
  }
}

it('a statement that waits long on a database that answers is not cut: only silence is', async () => {
  const {link, storage, read, settled, release} = await readWaitingOnLock()
  // two more connections opened meanwhile (the watch opens one every 5 s): it waited far past the connect timeout
  const opened = link.opened
  await expect.poll(() => link.opened, {timeout: 15_000}).toBeGreaterThanOrEqual(opened + 2)
  expect(settled()).toBe(false)
  expect(storage.failure).toBeUndefined()

  await release()
  expect(await read).toEqual(EVENT)
})

it.each([
  ['', false],
  [', the session asked while the listening connection opens again', true],
])(
  'a new connection that does not open in time cuts nothing while the database answers the open ones%s',
  async (_, relisten) => {
    const {link, admin, storage, read, settled, release} = await readWaitingOnLock()

    // new connections open and hear nothing (a connection storm, a slow login), while those open are answered
    link.silence()
    if (relisten)
      await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'",
      )
    // the watch's connection does not open within the connect timeout: the storage fails
    await expect.poll(() => storage.failure?.name, {timeout: 15_000}).toBe('DatabaseUnavailable')
    // three more given up on since (its probes, once a second, and its own connections were they let go of): each
    // of its probes that times out is followed by a look at the listening connection
    const abandoned = link.abandoned
    await expect.poll(() => link.abandoned, {timeout: 10_000}).toBeGreaterThanOrEqual(abandoned + 3)
    expect(settled()).toBe(false)

    await release()
    expect(await read).toEqual(EVENT)
    link.speak()
    await expect.poll(() => storage.failure, {timeout: 10_000}).toBeUndefined()
  },
)

it('a close while a unit waits on a database that answers nothing ends, failing the unit', async () => {
  const {link, url} = await behindRelay()
  const storage = await PgStorage.open({url, connectTimeoutMs: 500})
  await storage.unit(async (tx) => tx.put('events', EVENT.id, EVENT))

  link.freeze()
  const unit = expect(storage.unit((tx) => tx.get('events', EVENT.id))).rejects.toMatchObject({
    name: 'DatabaseUnavailable',
  })
  await storage.close()
  await unit
})

it('a close once the database was found silent does not wait for the connections its pool opened since', async () => {
  const {link, url} = await behindRelay()
  const storage = await PgStorage.open({url, connectTimeoutMs: 8000, poolSize: 2})
  await storage.unit(async (tx) => tx.put('events', EVENT.id, EVENT))

  link.freeze()
  // more units than connections: those waiting for one give up at the cut, and the pool opens connections for them
  const units = Array.from({length: 6}, () => storage.unit((tx) => tx.get('events', EVENT.id)).catch((e) => e))
  for (const failed of await Promise.all(units)) expect(failed).toMatchObject({name: 'DatabaseUnavailable'})
  const closedAt = Date.now()
  await storage.close()
  // the session's end, at most 1 s: not the connections opened for the units that gave up, which the silent
  // database would hold until their connect timeout
  expect(Date.now() - closedAt).toBeLessThan(2500)
})

it('serve answers 503 storage_unavailable to a push under way when the database stops answering, and a SIGTERM then exits at once while it is still silent', async () => {
  const {link, url} = await behindRelay()
  const serve = await startCliServer(['--database', url, '--seed', 'fixtures/seed.json'])
  cleanup.push(() => serve.kill('SIGKILL'))
  const base = serve.url.replace(/\/v1$/, '')
  const push = (id: string) => call(base, 'PUT', `/v1/checks/external/${id}`, {body: checkWith([['a', 1, 100]])})
  expect((await push('t1')).status).toBe(201)

  link.freeze()
  const frozenAt = Date.now()
  const answer = await push('t2')
  expect(answer.status).toBe(503)
  expect(answer.body.error).toMatchObject({code: 'storage_unavailable'})
  // the watch opens a connection every 5 s, and gives up on one after the connect timeout, 10 s
  expect(Date.now() - frozenAt).toBeLessThan(5000 + 10_000 + 4000)
  // its listening connection, its session and a probe open again meanwhile, and hear nothing
  const opened = link.opened
  await expect.poll(() => link.opened, {timeout: 5000}).toBeGreaterThanOrEqual(opened + 3)
  // nothing waits for the database now, and no connection to it keeps the process
  const stopAt = Date.now()
  expect(await serve.kill('SIGTERM')).toBe(0)
  expect(Date.now() - stopAt).toBeLessThan(5000)
})

it.each([
  ['its listening connection listens', 'LISTEN'],
  ['it migrates', 'CREATE TABLE'],
  ['its session opens', 'pg_try_advisory_lock'],
])('a start whose database stops answering while %s fails instead of waiting', async (_, marker) => {
  let freeze = () => {}
  const behind = await databaseBehindRelay(() => (chunk) => {
    if (chunk.toString('latin1').includes(marker)) freeze()
  })
  cleanup.push(() => behind.db.drop())
  cleanup.push(() => behind.link.cut().catch(() => {}))
  freeze = () => behind.link.freeze()
  const startedAt = Date.now()
  await expect(PgStorage.open({url: behind.url, connectTimeoutMs: 500})).rejects.toThrow(
    /cannot connect to .* \(timeout expired\); is the database up/,
  )
  // the watch opens a connection every 5 s, gives up on it after the connect timeout and asks for 1 s; then the close
  expect(Date.now() - startedAt).toBeLessThan(5000 + 500 + 1000 + 5000)
})

it('a connection ended while it opens to a database that answers nothing fails its connect at once', async () => {
  const {link, url} = await behindRelay()
  link.silence()
  const connection = new Connection(connecting(url, 60_000))
  const connected = connection.connect()
  await expect.poll(() => link.clients).toBe(1)
  const endedAt = Date.now()
  await connection.end()
  await expect(connected).rejects.toThrow(/Connection terminated/)
  expect(Date.now() - endedAt).toBeLessThan(1000)
  await expect.poll(() => link.clients).toBe(0)
})
