import pg from 'pg'
import {afterEach, describe, expect, it} from 'vitest'
import type {CheckRecord} from '../../src/domain/records.js'
import {byExternalId, byGuestToken, CheckCache} from '../../src/postgres/check-cache.js'
import {PgStorage} from '../../src/postgres/storage.js'
import {type RunningServer, startServer} from '../../src/server/start.js'
import {checkWith} from '../helpers/checks.js'
import {createTestDatabase} from '../helpers/postgres.js'
import {databaseBehindRelay} from '../helpers/relay.js'
import {call, makeTempDir, writeSeed} from '../helpers/simulator.js'
import {type RoundTrip, roundTrips} from '../helpers/wire.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

const check = (id: string, externalId: string, token = `tok_${id}`) =>
  ({id, account_id: 'acct_a', external_id: externalId, guest_token: token}) as CheckRecord

describe('CheckCache', () => {
  it('gives a kept check only in the stretch of time alone it was kept in, and by the lookups that found it', async () => {
    let stretch: number | undefined = 1
    const cache = new CheckCache(() => stretch)
    const a = check('chk_1', 'A1')
    expect(await cache.read(byExternalId('acct_a', 'A1'), async () => a)).toBe(a)
    expect(cache.kept(byExternalId('acct_a', 'A1'))).toBe(a)
    expect(cache.kept(byExternalId('acct_b', 'A1'))).toBeUndefined()
    expect(cache.kept(byGuestToken('tok_chk_1'))).toBeUndefined()
    stretch = undefined
    expect(cache.kept(byExternalId('acct_a', 'A1'))).toBeUndefined()
    expect(await cache.read(byExternalId('acct_a', 'A1'), async () => a)).toBe(a)
    stretch = 2
    expect(cache.kept(byExternalId('acct_a', 'A1'))).toBeUndefined()
  })

  it('keeps nothing a read found while a unit committed a check, or while the stretch ended', async () => {
    let stretch: number | undefined = 1
    const cache = new CheckCache(() => stretch)
    const old = check('chk_1', 'A1')
    let answer!: (found: CheckRecord) => void
    const reading = cache.keep(byExternalId('acct_a', 'A1'), () => new Promise((resolve) => (answer = resolve)))
    cache.forget([['checks', 'chk_2', null]])
    answer(old)
    expect(await reading).toBe(old)
    expect(cache.kept(byExternalId('acct_a', 'A1'))).toBeUndefined()

    const ending = cache.keep(byExternalId('acct_a', 'A1'), () => new Promise((resolve) => (answer = resolve)))
    stretch = 2
    answer(old)
    await ending
    expect(cache.kept(byExternalId('acct_a', 'A1'))).toBeUndefined()

    await cache.keep(byExternalId('acct_a', 'A1'), async () => old)
    cache.forget([['events', 'chk_1', null]])
    expect(cache.kept(byExternalId('acct_a', 'A1'))).toBe(old)
    cache.forget([['checks', 'chk_1', check('chk_1', 'A1')]])
    expect(cache.kept(byExternalId('acct_a', 'A1'))).toBeUndefined()
  })

  it('keeps the checks a unit committed, by each of their lookups, only when alone since the unit began', () => {
    let stretch: number | undefined = 1
    const cache = new CheckCache(() => stretch)
    const a = check('chk_1', 'A1')
    cache.remember(
      [
        ['checks', 'chk_1', a],
        ['events', 'evt_1', {} as never],
        ['checks', 'chk_2', null],
      ],
      cache.mark(),
    )
    expect(cache.kept(byExternalId('acct_a', 'A1'))).toBe(a)
    expect(cache.kept(byGuestToken('tok_chk_1'))).toBe(a)

    const mark = cache.mark()
    stretch = 2
    cache.remember([['checks', 'chk_3', check('chk_3', 'A3')]], mark)
    expect(cache.kept(byExternalId('acct_a', 'A3'))).toBeUndefined()
    stretch = undefined
    cache.remember([['checks', 'chk_3', check('chk_3', 'A3')]], cache.mark())
    stretch = 3
    expect(cache.kept(byExternalId('acct_a', 'A3'))).toBeUndefined()
  })

  it('keeps no check a unit put and then deleted, and the last of two puts', () => {
    const cache = new CheckCache(() => 1)
    const [first, second] = [check('chk_1', 'A1'), check('chk_1', 'A1')]
    cache.remember(
      [
        ['checks', 'chk_2', check('chk_2', 'A2')],
        ['checks', 'chk_1', first],
        ['checks', 'chk_2', null],
        ['checks', 'chk_1', second],
      ],
      cache.mark(),
    )
    expect(cache.kept(byExternalId('acct_a', 'A2'))).toBeUndefined()
    expect(cache.kept(byExternalId('acct_a', 'A1'))).toBe(second)
  })

  it('keeps an account as having no webhook endpoints only when alone since the read began and no endpoint was written meanwhile', () => {
    let stretch: number | undefined = 1
    const cache = new CheckCache(() => stretch)
    const endpoint = (accountId: string) => ({id: 'we_1', account_id: accountId}) as never
    cache.keepBare('acct_a', cache.endpointsMark())
    expect(cache.bare('acct_a')).toBe(true)
    expect(cache.bare('acct_b')).toBe(false)

    const written = cache.endpointsMark()
    cache.forget([['webhook_endpoints', 'we_1', endpoint('acct_b')]])
    cache.keepBare('acct_b', written)
    expect(cache.bare('acct_b')).toBe(false)
    // another account's endpoint drops only its own account; a deletion, which names none, drops them all
    expect(cache.bare('acct_a')).toBe(true)
    cache.forget([['webhook_endpoints', 'we_1', endpoint('acct_a')]])
    expect(cache.bare('acct_a')).toBe(false)
    cache.keepBare('acct_a', cache.endpointsMark())
    cache.keepBare('acct_b', cache.endpointsMark())
    cache.forget([['webhook_endpoints', 'we_1', null]])
    expect([cache.bare('acct_a'), cache.bare('acct_b')]).toEqual([false, false])

    cache.keepBare('acct_a', cache.endpointsMark())
    stretch = undefined
    expect(cache.bare('acct_a')).toBe(false)
    cache.keepBare('acct_a', cache.endpointsMark())
    stretch = 2
    expect(cache.bare('acct_a')).toBe(false)
    const mark = cache.endpointsMark()
    stretch = 3
    cache.keepBare('acct_a', mark)
    expect(cache.bare('acct_a')).toBe(false)
  })

  it('a check found by another lookup since is given only if it still matches', async () => {
    const cache = new CheckCache(() => 1)
    await cache.keep(byGuestToken('tok_old'), async () => check('chk_1', 'A1', 'tok_old'))
    await cache.keep(byExternalId('acct_a', 'A1'), async () => check('chk_1', 'A1', 'tok_new'))
    expect(cache.kept(byGuestToken('tok_old'))).toBeUndefined()
    expect(cache.kept(byGuestToken('tok_new'))).toBeUndefined()
    expect(cache.kept(byExternalId('acct_a', 'A1'))?.guest_token).toBe('tok_new')
  })
})

/** A server on a database behind a relay that reads its round trips off the wire. */
async function serverOnWire(): Promise<{server: RunningServer; trips: RoundTrip[]; url: string; admin: string}> {
  const wire = roundTrips()
  const {db, link, url} = await databaseBehindRelay(wire.tap)
  cleanup.push(() => db.drop())
  cleanup.push(() => link.cut().catch(() => {}))
  const server = await startServer({port: 0, host: '127.0.0.1', database: url, seedFile: await seedFile()})
  cleanup.push(() => server.close())
  return {server, trips: wire.trips, url, admin: db.url}
}

const seedFile = async () => writeSeed(await makeTempDir())

const push = (server: RunningServer, quantity: number, id = 'cc1') =>
  call(server.url, 'PUT', `/v1/checks/external/${id}`, {body: checkWith([['steak', quantity, 1000]])})

const quantityOn = async (server: RunningServer, id = 'cc1') =>
  (await call(server.url, 'GET', `/v1/checks/external/${id}`)).body.items?.[0]?.quantity

/** The round trips `work` sends, once the server is quiet again. */
async function sentBy(trips: RoundTrip[], work: () => Promise<unknown>): Promise<number> {
  const from = trips.length
  await work()
  return trips.length - from
}

describe('an instance alone on its database', () => {
  it('answers a GET or a replay of a check it read or changed without the database', async () => {
    const {server, trips} = await serverOnWire()
    expect((await push(server, 1)).status).toBe(201)
    expect(await quantityOn(server)).toBe(1)
    expect(await sentBy(trips, () => quantityOn(server))).toBe(0)
    const replay = await push(server, 1)
    expect([replay.status, replay.headers.get('x-tablepay-push-result')]).toEqual([200, 'unchanged'])
    expect(await sentBy(trips, () => push(server, 1))).toBe(0)

    // a change to a kept check of an account without endpoints waits for the database once, for one statement,
    // its own transaction: the account's lock, the check's comparison and writes, its events and the commit number
    const from = trips.length
    expect((await push(server, 2)).headers.get('x-tablepay-push-result')).toBe('updated')
    expect(
      trips.slice(from).map(({sql, named}) => [sql.filter((text) => !text.startsWith('WITH locked')), named]),
    ).toEqual([[[], ['tp_kept_push_1']]])
    // what it committed is kept: a GET or a replay right after the change asks nothing
    expect(await sentBy(trips, () => quantityOn(server).then((quantity) => expect(quantity).toBe(2)))).toBe(0)
    const replayed = await sentBy(trips, async () =>
      expect((await push(server, 2)).headers.get('x-tablepay-push-result')).toBe('unchanged'),
    )
    expect(replayed).toBe(0)
  })

  it('reads no webhook endpoints for a push to an account it read has none, until one is made there', async () => {
    const {server, trips} = await serverOnWire()
    const endpointsRead = async (quantity: number) => {
      const from = trips.length
      expect((await push(server, quantity)).status).toBeLessThan(300)
      return trips.slice(from).some((trip) => trip.sql.some((sql) => sql.includes('tp_endpoints(')))
    }
    expect(await endpointsRead(1)).toBe(true)
    expect(await endpointsRead(2)).toBe(false)
    const made = await call(server.url, 'POST', '/v1/webhook-endpoints', {
      body: {url: 'http://127.0.0.1:9/hooks', event_types: ['check.updated']},
    })
    expect(made.status).toBe(201)
    expect(await endpointsRead(3)).toBe(true)
    const deliveries = await call(server.url, 'GET', `/v1/deliveries?endpoint_id=${made.body.id}`)
    expect(deliveries.body.data).toHaveLength(1)
    expect(await endpointsRead(4)).toBe(true)
  })

  it('a push to a check changed in the database since it was kept runs again on the stored one', async () => {
    const {server, admin} = await serverOnWire()
    expect((await push(server, 1)).status).toBe(201)
    expect((await push(server, 2)).headers.get('x-tablepay-push-result')).toBe('updated')
    const database = new pg.Client({connectionString: admin})
    await database.connect()
    cleanup.push(() => database.end())
    // by hand, behind the instance's back: the kept check is no longer the stored one
    await database.query(`UPDATE checks SET doc = (doc::jsonb || '{"version": 7}')::json WHERE external_id = 'cc1'`)
    const stale = await call(server.url, 'PUT', '/v1/checks/external/cc1', {
      body: checkWith([['steak', 3, 1000]], {version: 5}),
    })
    expect([stale.status, stale.headers.get('x-tablepay-push-result')]).toEqual([200, 'stale'])
    expect(await quantityOn(server)).toBe(2)
  })

  it("a kept check's push waits for its account's lock, which a restore holds alone, before it locks the check", async () => {
    const {server, trips, admin} = await serverOnWire()
    expect((await push(server, 1)).status).toBe(201)
    expect(await quantityOn(server)).toBe(1)
    const database = new pg.Client({connectionString: admin})
    await database.connect()
    cleanup.push(() => database.end())
    const {rows} = await database.query(`SELECT account_id FROM checks WHERE external_id = 'cc1'`)
    await database.query('BEGIN')
    await database.query(`SELECT pg_advisory_xact_lock(hashtextextended('account-records:' || $1, 0))`, [
      rows[0].account_id,
    ])
    const from = trips.length
    const pushed = push(server, 2)
    await expect
      .poll(async () => {
        const waiting = await database.query(
          `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`,
        )
        return waiting.rows[0].n
      })
      .toBe(1)
    // waiting for the account, the push holds no lock on its check
    await database.query(`SELECT 1 FROM checks WHERE external_id = 'cc1' FOR UPDATE NOWAIT`)
    await database.query('ROLLBACK')
    expect((await pushed).headers.get('x-tablepay-push-result')).toBe('updated')
    expect(trips.slice(from).flatMap((trip) => trip.named)).toEqual(['tp_kept_push_1'])
    expect(await quantityOn(server)).toBe(2)
  })

  it('keeps nothing while its listening connection is lost, in which it might miss another instance starting, and keeps again once it listens', async () => {
    const {server, trips, admin} = await serverOnWire()
    expect((await push(server, 1)).status).toBe(201)
    await quantityOn(server)
    expect(await sentBy(trips, () => quantityOn(server))).toBe(0)
    const database = new pg.Client({connectionString: admin})
    await database.connect()
    cleanup.push(() => database.end())
    await database.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'`,
    )
    // once the instance hears of the loss, each GET goes to the database, until it listens again and has looked
    await expect.poll(() => sentBy(trips, () => quantityOn(server)), {timeout: 10_000}).toBeGreaterThan(0)
    await expect.poll(() => sentBy(trips, () => quantityOn(server)), {timeout: 10_000}).toBe(0)
    const listening = await database.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'`,
    )
    expect(listening.rows[0].n).toBe(1)
  })
})

/** Two units of `storage` that read the kept check A1, both before either writes, and each adds one to its count. */
async function incrementTogether(storage: PgStorage): Promise<number> {
  let runs = 0
  let bothRead!: () => void
  const both = new Promise<void>((resolve) => (bothRead = resolve))
  const increment = () =>
    storage.unit(async (tx) => {
      const kept = (await tx.checkByExternalId('acct_a', 'A1')) as unknown as {count: number}
      // each has read the kept check before either writes
      if (++runs === 2) bothRead()
      await both
      tx.put('checks', 'chk_1', {...kept, count: kept.count + 1} as never)
    })
  await Promise.all([increment(), increment()])
  return runs
}

describe('two units of one instance that both read a kept check and write it lose neither write: the second runs again', () => {
  const record = {...check('chk_1', 'A1'), status: 'open', location_id: 'loc_1', count: 0}
  let url = ''
  const opened = async () => {
    const db = await createTestDatabase()
    cleanup.push(() => db.drop())
    url = db.url
    const storage = await PgStorage.open({url})
    cleanup.push(() => storage.close())
    return storage
  }
  const countOf = async (storage: PgStorage) =>
    ((await storage.get('checks', 'chk_1')) as unknown as typeof record).count
  /** The counts a unit that reads A1, then the locations, sees of it, after its count is set to 5 by hand. */
  const seenAfterHandEdit = async (storage: PgStorage) => {
    const database = new pg.Client({connectionString: url})
    await database.connect()
    cleanup.push(() => database.end())
    await database.query(`UPDATE checks SET doc = (doc::jsonb || '{"count": 5}')::json WHERE id = 'chk_1'`)
    const seen: number[] = []
    await storage.unit(async (tx) => {
      seen.push(((await tx.checkByExternalId('acct_a', 'A1')) as unknown as typeof record).count)
      await tx.list('locations', 'acct_a')
    })
    return seen
  }

  it('read in the unit, as a push reads its check, with the endpoints of its account', async () => {
    const storage = await opened()
    await storage.unit(async (tx) => {
      tx.put('checks', 'chk_1', record as never)
      tx.put('webhook_endpoints', 'we_1', {id: 'we_1', account_id: 'acct_a', status: 'enabled'} as never)
    })
    expect(await storage.checkByExternalId('acct_a', 'A1')).toEqual(record)
    expect(await storage.checkByExternalId('acct_a', 'A1')).toBe(await storage.checkByExternalId('acct_a', 'A1'))
    expect(await incrementTogether(storage)).toBe(3)
    expect(await countOf(storage)).toBe(2)
    // changed by hand since it was kept: the unit runs again on the stored check
    expect(await seenAfterHandEdit(storage)).toEqual([2, 5])
  })

  it('of an account without endpoints, compared in the database with the writes', async () => {
    const storage = await opened()
    // a push's read of a check not there yet reads the account's endpoints: none, kept so
    await storage.unit(async (tx) => {
      expect(await tx.checkByExternalId('acct_a', 'A1')).toBeUndefined()
      tx.put('checks', 'chk_1', record as never)
    })
    expect(await incrementTogether(storage)).toBe(3)
    expect(await countOf(storage)).toBe(2)

    // changed by hand since it was kept: a unit whose first query is a read runs again on the stored check
    expect(await seenAfterHandEdit(storage)).toEqual([2, 5])
  })
})

describe('two instances', () => {
  it("a check one kept while alone is read anew once another starts: each sees the other's change at once", async () => {
    const {server: a, admin} = await serverOnWire()
    expect((await push(a, 1)).status).toBe(201)
    expect(await quantityOn(a)).toBe(1)
    expect((await push(a, 1)).headers.get('x-tablepay-push-result')).toBe('unchanged')

    const b = await startServer({port: 0, host: '127.0.0.1', database: admin, seedFile: await seedFile()})
    let bOpen = true
    cleanup.push(() => (bOpen ? b.close() : Promise.resolve()))
    expect((await push(b, 2)).headers.get('x-tablepay-push-result')).toBe('updated')
    expect(await quantityOn(a)).toBe(2)
    // a replay of what a kept is a change again
    expect((await push(a, 1)).headers.get('x-tablepay-push-result')).toBe('updated')
    expect(await quantityOn(b)).toBe(1)

    // alone again once b stops: what b changed last is what a reads
    expect((await push(b, 3)).headers.get('x-tablepay-push-result')).toBe('updated')
    await b.close()
    bOpen = false
    expect(await quantityOn(a)).toBe(3)
    expect(await quantityOn(a)).toBe(3)
  })
})
