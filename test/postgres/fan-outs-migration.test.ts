import pg from 'pg'
import {expect, it} from 'vitest'
import {migrate} from '../../src/postgres/migrations.js'
import {MIGRATIONS} from '../../src/postgres/schema.js'
import {PgStorage} from '../../src/postgres/storage.js'
import {CLOCK_SETTING} from '../../src/webhooks/clock.js'
import {createTestDatabase, testPool} from '../helpers/postgres.js'

it('a database of the schema before fan-out marks had their table gets it, and keeps what it holds', async () => {
  const db = await createTestDatabase({empty: true})
  const client = new pg.Client({connectionString: db.url})
  await client.connect()
  let storage: PgStorage | undefined
  try {
    // the schema as the version before made it (every migration before the one that adds fan_outs), holding the clock's offset
    const before = MIGRATIONS.findIndex((statements) =>
      statements.some((s) => s.includes('TABLE IF NOT EXISTS fan_outs')),
    )
    await client.query('CREATE TABLE tablepay_schema (version integer NOT NULL)')
    await client.query('INSERT INTO tablepay_schema (version) VALUES ($1)', [before])
    for (const statement of MIGRATIONS.slice(0, before).flat()) await client.query(statement)
    const offset = {id: CLOCK_SETTING, account_id: '', value: 5000}
    await client.query("INSERT INTO settings (id, account_id, doc) VALUES ($1, '', $2)", [
      CLOCK_SETTING,
      JSON.stringify(offset),
    ])
    const tables = async () =>
      (await client.query<{name: string}>("SELECT tablename AS name FROM pg_tables WHERE tablename = 'fan_outs'")).rows
    expect(await tables()).toEqual([])

    storage = await PgStorage.open({url: db.url})
    expect((await client.query('SELECT version FROM tablepay_schema')).rows).toEqual([{version: MIGRATIONS.length}])
    expect(await tables()).toEqual([{name: 'fan_outs'}])
    expect(await storage.get('settings', CLOCK_SETTING)).toEqual(offset)
    const mark = {id: 'evt_1', account_id: '' as const, due: 5000}
    await storage.unit(async (tx) => tx.put('fan_outs', mark.id, mark))
    expect(await storage.all('fan_outs')).toEqual([mark])
    const pool = testPool(db.url)
    try {
      expect(await migrate(pool)).toBe(0)
    } finally {
      await pool.end()
    }
  } finally {
    await client.end()
    await storage?.close()
    await db.drop()
  }
})
