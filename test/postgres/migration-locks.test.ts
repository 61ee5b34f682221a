import pg from 'pg'
import {afterEach, beforeEach, expect, it} from 'vitest'
import {migrate} from '../../src/postgres/migrations.js'
import {MIGRATIONS} from '../../src/postgres/schema.js'
import {createTestDatabase, type TestDatabase, testPool} from '../helpers/postgres.js'

// the version that adds a column to `deleted`: its ALTER TABLE needs the table to itself
const ALTERS_DELETED = MIGRATIONS.findIndex((statements) => statements.some((s) => s.startsWith('ALTER TABLE deleted')))

let db: TestDatabase
/** A session of the user's own, left idle in a transaction that read `deleted`, as `psql` leaves one. */
let idle: pg.Client
let pool: pg.Pool

beforeEach(async () => {
  db = await createTestDatabase({empty: true})
  idle = new pg.Client({connectionString: db.url, application_name: 'psql'})
  await idle.connect()
  // the schema as the version before made it
  await idle.query('CREATE TABLE tablepay_schema (version integer NOT NULL)')
  await idle.query('INSERT INTO tablepay_schema (version) VALUES ($1)', [ALTERS_DELETED])
  for (const statement of MIGRATIONS.slice(0, ALTERS_DELETED).flat()) await idle.query(statement)
  await idle.query('BEGIN')
  await idle.query('SELECT count(*) FROM deleted')
  pool = testPool(db.url)
})

afterEach(async () => {
  await idle.end()
  await pool.end()
  await db.drop()
})

const version = async (client: pg.Client) =>
  (await client.query<{version: number}>('SELECT version FROM tablepay_schema')).rows[0]!.version

it("an upgrade that waits for a table's lock lets others' statements on it go between its tries, and runs once it is let go", async () => {
  const migrating = migrate(pool)
  const other = new pg.Client({connectionString: db.url})
  await other.connect()
  try {
    const waiting = async () =>
      (await other.query("SELECT 1 FROM pg_locks WHERE relation = 'deleted'::regclass AND NOT granted")).rows.length
    await expect.poll(waiting).toBe(1)
    // queued behind the waiting ALTER TABLE, which would hold it for as long as the idle session stays open
    expect((await other.query('SELECT count(*)::int AS n FROM deleted')).rows).toEqual([{n: 0}])
    await idle.query('COMMIT')
    expect(await migrating).toBe(MIGRATIONS.length - ALTERS_DELETED)
    expect(await version(other)).toBe(MIGRATIONS.length)
  } finally {
    await other.end()
  }
})

it('an upgrade held up past its bound fails, naming the session that holds its table, and changes nothing', async () => {
  const {pid} = (await idle.query<{pid: number}>('SELECT pg_backend_pid() AS pid')).rows[0]!
  await expect(migrate(pool, 3000)).rejects.toThrow(
    new RegExp(
      `^postgres: the upgrade to schema version ${ALTERS_DELETED + 1} waited \\d+ s for its tables, which ` +
        `pid ${pid} \\(psql, idle in transaction, in a transaction since [^)]+\\) holds; end that transaction ` +
        `\\(COMMIT or ROLLBACK in that session, or SELECT pg_terminate_backend\\(${pid}\\)\\), then start again$`,
    ),
  )
  await idle.query('COMMIT')
  expect(await version(idle)).toBe(ALTERS_DELETED)
  const columns = await idle.query(
    "SELECT 1 FROM information_schema.columns WHERE table_name = 'deleted' AND column_name = 'account_id'",
  )
  expect(columns.rows).toEqual([])
})
