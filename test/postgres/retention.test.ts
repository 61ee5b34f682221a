import pg from 'pg'
import {describe, expect, it, onTestFinished} from 'vitest'
import {total} from '../../src/service/retention.js'
import {checkWith} from '../helpers/checks.js'
import {serviceForTest} from '../service/service.js'

const DAY_MS = 86_400_000

describe('retention on PostgreSQL', () => {
  it("a pass that finds an event deleted by another instance's pass ends without an error, and the next pass prunes the rest", async () => {
    const {service, databaseUrl, wall} = await serviceForTest()
    for (let version = 1; version <= 3; version++)
      await service.checks.push('acct_demo', 't1', checkWith([['a', version, 500]], {version}))
    const [oldest] = await service.records.allOf('events', 'acct_demo')
    wall.ms += 31 * DAY_MS

    // another instance's pass deletes the oldest event and has not committed: this pass pages past its
    // uncommitted delete, then waits for the row's lock
    const other = new pg.Client({connectionString: databaseUrl})
    await other.connect()
    onTestFinished(() => other.end())
    await other.query('BEGIN')
    await other.query('DELETE FROM events WHERE id = $1', [oldest!.id])
    const pass = service.retention.prune()
    let settled = false
    void pass.finally(() => (settled = true)).catch(() => {})
    const waiting =
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"
    while (!settled && (await other.query<{n: number}>(waiting)).rows[0]!.n === 0);
    await other.query('COMMIT')

    await pass
    while (total(await service.retention.prune()) > 0);
    expect(await service.records.allOf('events', 'acct_demo')).toEqual([])
  })
})
