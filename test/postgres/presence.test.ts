import pg from 'pg'
import {afterEach, beforeEach, expect, it} from 'vitest'
import {Presence} from '../../src/postgres/presence.js'
import {scopeOf} from '../../src/postgres/scope.js'
import {createTestDatabase, testPool, type TestDatabase} from '../helpers/postgres.js'

let db: TestDatabase
let pool: pg.Pool
const OWNER = 101
const OTHER = 202
const {lifeLock: LIFE_LOCK} = scopeOf('public')

beforeEach(async () => {
  db = await createTestDatabase()
  pool = testPool(db.url, 2)
})

afterEach(async () => {
  await pool.end()
  await db.drop()
})

/** A presence on the test database, and the notes it sends, as `[topic, note]`. */
function presence() {
  const sent: [string, object][] = []
  return {presence: new Presence(OWNER, LIFE_LOCK, pool, (topic, note) => sent.push([topic, note])), sent}
}

it('an instance is alone until another says hello, which it welcomes, and alone again once that one says bye', async () => {
  const {presence: own, sent} = presence()
  await own.join(true)
  expect(own.alone).toBe(true)
  expect(sent).toEqual([['instance_hello', {}]])

  expect(own.heard(OTHER, 'instance_hello', {})).toBe(true)
  expect(own.alone).toBe(false)
  expect(sent.at(-1)).toEqual(['instance_welcome', {to: OTHER}])

  expect(own.heard(OTHER, 'instance_bye', {})).toBe(true)
  expect(own.alone).toBe(true)
  own.leave()
  expect(sent.at(-1)).toEqual(['instance_bye', {}])
})

it('a look at the life locks drops an instance heard from that holds none, and keeps one that holds its lock', async () => {
  const {presence: own} = presence()
  await own.join(true)
  // a request's note says its sender is alive, and is passed on to the other listeners
  expect(own.heard(OTHER, 'request_trace', {})).toBe(false)
  expect(own.alone).toBe(false)
  await own.join(false)
  expect(own.alone).toBe(true)

  const other = new pg.Client({connectionString: db.url})
  await other.connect()
  try {
    await other.query('SELECT pg_advisory_lock($1, $2)', [LIFE_LOCK, OTHER])
    await own.join(false)
    expect(own.alone).toBe(false)
  } finally {
    await other.end()
  }
  own.leave()
})

it('a starting instance waits for the welcome of each one alive, and no longer', async () => {
  const other = new pg.Client({connectionString: db.url})
  await other.connect()
  try {
    await other.query('SELECT pg_advisory_lock($1, $2)', [LIFE_LOCK, OTHER])
    const {presence: own} = presence()
    let joined = false
    const joining = own.join(true).then(() => (joined = true))
    await expect.poll(() => own.alone).toBe(false)
    expect(joined).toBe(false)
    own.heard(OTHER, 'instance_welcome', {to: OWNER})
    await joining
    own.leave()
  } finally {
    await other.end()
  }
})

it('a stretch of time surely alone begins with a look, and ends at a hello, a doubt, or a look that finds another', async () => {
  const {presence: own} = presence()
  expect(own.aloneStretch).toBeUndefined()
  await own.join(true)
  const first = own.aloneStretch
  expect(first).toBeDefined()
  // a look that finds the same: the same stretch
  await own.join(false)
  expect(own.aloneStretch).toBe(first)

  own.heard(OTHER, 'instance_hello', {})
  expect(own.aloneStretch).toBeUndefined()
  own.heard(OTHER, 'instance_bye', {})
  const second = own.aloneStretch
  expect(second).toBeDefined()
  expect(second).not.toBe(first)

  // a doubt (a hello that may have been missed) holds until the next look, which makes a new stretch
  own.doubt()
  expect(own.aloneStretch).toBeUndefined()
  await own.join(false)
  expect([undefined, first, second]).not.toContain(own.aloneStretch)

  // a look that began before a doubt does not end it
  const looking = own.join(false)
  own.doubt()
  await looking
  expect(own.aloneStretch).toBeUndefined()
  own.leave()
})

it('back after a time deaf, an instance is not surely alone until a look made since', async () => {
  const {presence: own} = presence()
  await own.join(true)
  // its listening connection lost, then a look while it hears nothing (the one every 10 s): sure again
  own.doubt()
  await own.join(false)
  expect(own.aloneStretch).toBeDefined()
  // heard again: a hello sent while it was deaf is missed, so the look before vouches for nothing
  const back = own.rejoin()
  expect(own.aloneStretch).toBeUndefined()
  await back
  expect(own.aloneStretch).toBeDefined()
  own.leave()
})
