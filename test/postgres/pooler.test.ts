import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import {TablepayClient} from '../../src/client/client.js'
import {type CliProcess, runCommand, spawnServe} from '../helpers/cli.js'
import {type PgBouncer, startPgBouncer} from '../helpers/pgbouncer.js'
import {createTestDatabase, type TestDatabase, testPool} from '../helpers/postgres.js'

let db: TestDatabase
let bouncer: PgBouncer | undefined
let server: CliProcess | undefined

beforeEach(async () => {
  db = await createTestDatabase({empty: true})
})

afterEach(async () => {
  await server?.stop()
  await bouncer?.stop()
  server = bouncer = undefined
  await db.drop()
})

describe('serve --database through a pooler', () => {
  it.each(['transaction', 'statement'] as const)(
    'refuses to start (exit 1) through PgBouncer in %s mode, saying to connect directly or in session mode',
    async (mode) => {
      bouncer = await startPgBouncer(db.url, mode)
      const refused = await runCommand(['serve', '--port', '0', '--database', bouncer.url])
      expect(refused.code).toBe(1)
      expect(refused.stderr.replace(/\s*›\s*/g, ' ')).toContain(
        'a pooler between them lends one session to many clients (PgBouncer in transaction or statement mode, ' +
          "a hosted database's pooled port); connect directly, or through a pooler in session mode",
      )
    },
  )

  it('starts through PgBouncer in session mode, and keeps the records in the database behind it', async () => {
    bouncer = await startPgBouncer(db.url, 'session')
    server = spawnServe(['--json', '--database', bouncer.url, '--seed', 'fixtures/seed.json'])
    const ready = await server.waitForOutput('\n')
    const {url} = JSON.parse(ready.slice(0, ready.indexOf('\n'))) as {url: string}
    await new TablepayClient({url, apiKey: 'tp_test_demo_write'}).pushCheck('t1', {
      table: {number: '1'},
      status: 'open',
      items: [],
      totals: {subtotal_cents: 0, tax_cents: 0, total_cents: 0},
    })
    const direct = testPool(db.url)
    try {
      const {rows} = await direct.query("SELECT doc->>'external_id' AS id FROM checks")
      expect(rows).toEqual([{id: 't1'}])
    } finally {
      await direct.end()
    }
  })
})
