import pg from 'pg'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import {PgStorage} from '../../src/postgres/storage.js'
import type {RequestTrace} from '../../src/domain/request-log.js'
import {RequestLog} from '../../src/service/request-log.js'
import {shareRequests} from '../../src/service/shared-requests.js'
import {createTestDatabase, type TestDatabase} from '../helpers/postgres.js'
import {checkWith} from '../helpers/checks.js'
import {requestTrace} from '../helpers/request-log.js'
import {serviceForTest} from '../service/service.js'

let db: TestDatabase
const stops: (() => unknown)[] = []

beforeEach(async () => {
  db = await createTestDatabase()
})

afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop()
  await db.drop()
})

/** One instance's request log, shared through its own connection to the database. */
async function instance() {
  const storage = await PgStorage.open({url: db.url})
  const requests = new RequestLog(100)
  stops.push(() => storage.close(), shareRequests(requests, storage.shared!))
  return requests
}

/** The notes sent on the database, as a client that listens for them (not an instance) hears them. */
async function notesHeard() {
  const client = new pg.Client({connectionString: db.url})
  await client.connect()
  stops.push(() => client.end())
  const notes: {topic: string; note: {trace?: {id: string} & Record<string, unknown>}}[] = []
  client.on('notification', ({payload}) => notes.push(JSON.parse(payload!)))
  await client.query('LISTEN tablepay_notes')
  return notes
}

/** Records `id` on `from` and resolves once `to` has it: every note `from` sent before it has been heard too. */
function recordAndHear(
  from: RequestLog,
  to: RequestLog,
  accountId: string,
  id: string,
  fields: Partial<RequestTrace> = {},
): Promise<void> {
  return new Promise((resolve) => {
    const stop = to.subscribe((_, heard) => {
      if (heard.id !== id) return
      stop()
      resolve()
    })
    from.record(accountId, requestTrace({id, ...fields}))
  })
}

describe('the request log across instances', () => {
  it('an instance alone sends no notes; one that starts hears every request made after its start', async () => {
    const notes = await notesHeard()
    const a = await instance()
    a.record('acct_a', requestTrace({id: 'req_alone'}))
    const b = await instance()
    // b's start waited for a's answer: a sends it every request from now on
    await recordAndHear(a, b, 'acct_a', 'req_heard')
    await expect.poll(() => notes.map(({note}) => note.trace?.id).filter(Boolean)).toEqual(['req_heard'])
    expect(notes.map(({topic}) => topic)).toEqual([
      'instance_hello',
      'instance_hello',
      'instance_welcome',
      'request_trace',
    ])
    expect(b.list('acct_a', {}, {limit: 10})!.data.map((entry) => entry.id)).toEqual(['req_heard'])
  })

  it("an instance alone does not even make a note (a push's would cost its changes), and makes each once another starts", async () => {
    const storage = await PgStorage.open({url: db.url})
    stops.push(() => storage.close())
    let made = 0
    const note = () => (made++, {})
    expect(storage.shared!.broadcast('test_note', note)).toBe(true)
    expect(made).toBe(0)
    const other = await PgStorage.open({url: db.url})
    stops.push(() => other.close())
    await expect.poll(() => storage.shared!.broadcast('test_note', note) && made).toBeGreaterThan(0)
  })

  it('a push that updated a check goes as its changes, not the check before and after, and shows as it does here', async () => {
    const {service, storage} = await serviceForTest()
    await service.checks.push('acct_demo', 't1', checkWith([['a', 1, 500]]))
    const previous = await storage.checkByExternalId('acct_demo', 't1')
    await service.checks.push('acct_demo', 't1', checkWith([['a', 2, 500]], {version: 2}))
    const next = await storage.checkByExternalId('acct_demo', 't1')
    const notes = await notesHeard()
    const [a, b] = await Promise.all([instance(), instance()])
    await recordAndHear(a, b, 'acct_a', 'req_updated', {method: 'PUT', push_result: 'updated', previous, next})
    // the listening client may hear the note after b
    const heard = () => notes.find(({note}) => note.trace?.id === 'req_updated')?.note.trace
    await expect.poll(heard).toBeDefined()
    const sent = heard()!
    expect(Object.keys(sent)).not.toContain('previous')
    expect(Object.keys(sent)).not.toContain('next')
    const here = a.get('acct_a', 'req_updated')!
    expect(here.changes).toMatchObject({items: {changed: [{external_id: 'a', fields: {quantity: [1, 2]}}]}})
    expect(b.get('acct_a', 'req_updated')).toEqual(here)
  })

  it("an account forgotten on one instance (deleted) is forgotten on the other, cursors included; a reset keeps the other's cursors", async () => {
    const [a, b] = await Promise.all([instance(), instance()])
    await recordAndHear(a, b, 'acct_gone', 'req_1')
    await recordAndHear(a, b, 'acct_reset', 'req_2')
    expect(b.list('acct_gone', {}, {limit: 10})!.data.map((entry) => entry.id)).toEqual(['req_1'])

    a.forget('acct_gone')
    a.clear('acct_reset')
    await recordAndHear(a, b, 'acct_other', 'req_3')
    expect(b.list('acct_gone', {}, {limit: 10, starting_after: 'req_1'})).toBeUndefined()
    // a reset's cursor is past the end, not unknown
    expect(b.list('acct_reset', {}, {limit: 10, starting_after: 'req_2'})).toEqual({
      object: 'list',
      data: [],
      has_more: false,
      next_cursor: null,
    })
  })
})
