import pg from 'pg'
import {describe, expect, it, onTestFinished} from 'vitest'
import {deleteStatement} from '../../src/postgres/bulk.js'
import {countPastSql} from '../../src/postgres/reader.js'
import {text} from '../../src/postgres/text.js'
import {total} from '../../src/service/retention.js'
import {checkWith} from '../helpers/checks.js'
import {serviceForTest} from '../service/service.js'

const DAY_MS = 86_400_000

/**
 * Three events past their age, and a pass over them that meets the oldest
 * deleted by another instance with `sql`: the other instance's transaction
 * has deleted it but not committed when the pass pages past it, and commits
 * while the pass waits for the row's lock. Resolves with the pass's result.
 */
async function passMeetingAnotherDelete(sql: (id: string) => string) {
  const {service, databaseUrl, wall} = await serviceForTest()
  for (let version = 1; version <= 3; version++)
    await service.checks.push('acct_demo', 't1', checkWith([['a', version, 500]], {version}))
  const [oldest] = await service.records.allOf('events', 'acct_demo')
  wall.ms += 31 * DAY_MS

  const other = new pg.Client({connectionString: databaseUrl})
  await other.connect()
  onTestFinished(() => other.end())
  await other.query('BEGIN')
  await other.query(sql(oldest!.id))
  const pass = service.retention.prune()
  let settled = false
  void pass.finally(() => (settled = true)).catch(() => {})
  while (!settled && !(await lockWaits(other)));
  await other.query('COMMIT')
  return {service, pruned: await pass}
}

/** Whether a session of the database waits for a lock now. */
async function lockWaits(client: pg.Client): Promise<boolean> {
  const waiting =
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"
  return (await client.query<{n: number}>(waiting)).rows[0]!.n > 0
}

describe('retention on PostgreSQL', () => {
  it("a pass below the bound reads the span of the account's event places, and counts the events only past it", async () => {
    const {service, databaseUrl} = await serviceForTest()
    for (let version = 1; version <= 5; version++)
      await service.checks.push('acct_demo', 't1', checkWith([['a', version, 500]], {version}))
    const client = new pg.Client({connectionString: databaseUrl})
    await client.connect()
    onTestFinished(() => client.end())
    await client.query(`PREPARE past(text, bigint) AS ${countPastSql('events')}`)
    /** The times the plan ran its count's aggregate, and what it answered, for `kept`. */
    const counted = async (kept: number) => {
      const [{'QUERY PLAN': plans}] = (
        await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE past('acct_demo', ${kept})`)
      ).rows
      const aggregates: {'Actual Loops': number}[] = []
      const walk = (node: {
        'Node Type': string
        'Parent Relationship'?: string
        'Actual Loops': number
        Plans?: unknown[]
      }) => {
        // the count is the plan's one aggregate under another node; the span's min and max are its top, or none
        if (node['Node Type'] === 'Aggregate' && node['Parent Relationship'] !== undefined) aggregates.push(node)
        for (const child of node.Plans ?? []) walk(child as typeof node)
      }
      walk(plans[0].Plan)
      const [{n}] = (await client.query(`EXECUTE past('acct_demo', ${kept})`)).rows
      return {loops: aggregates.map((node) => node['Actual Loops']), n}
    }
    expect(await counted(100_000)).toEqual({loops: [0], n: 0})
    expect(await counted(3)).toEqual({loops: [1], n: 2})
  })

  it('a pass locks no delivery it leaves: one a unit holds, as an attempt being recorded does, holds no pass up', async () => {
    const {service, databaseUrl} = await serviceForTest({retention: {maxEvents: 1, pruneBatch: 50}})
    const endpoint = await service.endpoints.create('acct_demo', {
      url: 'http://127.0.0.1:9/hooks',
      event_types: ['check.created', 'check.updated'],
    })
    for (let version = 1; version <= 3; version++)
      await service.checks.push('acct_demo', 't1', checkWith([['a', version, 500]], {version}))
    // the oldest event's delivery stays pending; the second's ends, so that event may go
    const [pending, ended] = await service.records.allOf('deliveries', 'acct_demo')
    const result = {status_code: 200, duration_ms: 1, error: null, response_body: 'ok'}
    const options = {now: new Date().toISOString(), dueAt: 0, schedule: [], disableAfter: 1000}
    await service.deliveries.recordAttempt(ended!.id, endpoint, result, options)

    const other = new pg.Client({connectionString: databaseUrl})
    await other.connect()
    onTestFinished(() => other.end())
    await other.query('BEGIN')
    await other.query('SELECT 1 FROM deliveries WHERE id = $1 FOR UPDATE', [pending!.id])
    const pass = service.retention.prune()
    let settled = false
    void pass.finally(() => (settled = true)).catch(() => {})
    let waited = false
    while (!settled && !waited) waited = await lockWaits(other)
    await other.query('COMMIT')
    expect(waited).toBe(false)
    expect((await pass).events).toBe(1)
    expect((await service.records.allOf('events', 'acct_demo')).map((event) => event.id)).toEqual([
      pending!.event_id,
      expect.any(String),
    ])
  })

  it('a pass over an account waits for a restore of it: it never deletes what the restore puts back', async () => {
    const {service, databaseUrl, wall} = await serviceForTest()
    for (let version = 1; version <= 3; version++)
      await service.checks.push('acct_demo', 't1', checkWith([['a', version, 500]], {version}))
    wall.ms += 31 * DAY_MS
    const other = new pg.Client({connectionString: databaseUrl})
    await other.connect()
    onTestFinished(() => other.end())
    // another session holds the account's lock as a restore does (src/postgres/unit.ts, accountLock)
    await other.query('BEGIN')
    await other.query("SELECT pg_advisory_xact_lock(hashtextextended('account-records:acct_demo', 0))")
    const pass = service.retention.prune()
    let settled = false
    void pass.finally(() => (settled = true)).catch(() => {})
    while (!settled && !(await lockWaits(other)));
    // it waits, or (what must not be) it has counted and deleted while the restore held the account
    expect(settled).toBe(false)
    await other.query('COMMIT')
    expect(total(await pass)).toBeGreaterThan(0)
  })

  it('a pass keeps an Idempotency-Key a payment stored afresh while the pass waited for it', async () => {
    const {service, databaseUrl, clock} = await serviceForTest()
    await service.checks.push('acct_demo', 't1', checkWith([['a', 1, 500]], {version: 1}))
    const check = (await service.records.checkByExternalId('acct_demo', 't1'))!
    await service.guests.pay(check, {amount_cents: 100}, {key: 'k', scope: 'api', hash: 'h1'})
    clock.moveTo(clock.now() + 25 * 3600_000)
    const [key] = await service.records.allOf('idempotency_keys', 'acct_demo')

    // a payment with the expired key, on another instance: it holds the key while it pays, then stores it afresh
    const other = new pg.Client({connectionString: databaseUrl})
    await other.connect()
    onTestFinished(() => other.end())
    await other.query('BEGIN')
    const held = await other.query('SELECT doc::text AS doc FROM idempotency_keys WHERE id = $1 FOR UPDATE', [
      text(key!.id),
    ])
    const pass = service.retention.prune()
    let settled = false
    void pass.finally(() => (settled = true)).catch(() => {})
    while (!settled && !(await lockWaits(other)));
    const fresh = {
      created_at: new Date(clock.now()).toISOString(),
      expires_at: new Date(clock.now() + 3600_000).toISOString(),
    }
    await other.query('UPDATE idempotency_keys SET doc = $2::json, expires_at = $3 WHERE id = $1', [
      text(key!.id),
      JSON.stringify({...JSON.parse(held.rows[0].doc), ...fresh}),
      fresh.expires_at,
    ])
    await other.query('COMMIT')
    expect((await pass).idempotency_keys).toBe(0)
    expect(await service.records.allOf('idempotency_keys', 'acct_demo')).toEqual([{...key, ...fresh}])
  })

  it("a pass passes over an event another instance's pass deleted while it waited, and prunes the rest", async () => {
    // deleted as a unit of work deletes: its place is kept for cursors
    const {service, pruned} = await passMeetingAnotherDelete((id) => deleteStatement('events', [id]))
    expect(pruned.events).toBe(2)
    expect(await service.records.allOf('events', 'acct_demo')).toEqual([])
  })

  it('a pass whose cursor event is gone with its place ends without an error, and the next pass prunes the rest', async () => {
    const {service} = await passMeetingAnotherDelete((id) => `DELETE FROM events WHERE id = '${id}'`)
    while (total(await service.retention.prune()) > 0);
    expect(await service.records.allOf('events', 'acct_demo')).toEqual([])
  })
})
