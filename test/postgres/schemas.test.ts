import pg from 'pg'
import {afterEach, expect, it} from 'vitest'
import {scopeOf} from '../../src/postgres/scope.js'
import type {RunningServer} from '../../src/server/start.js'
import {checkWith} from '../helpers/checks.js'
import {runCommand} from '../helpers/cli.js'
import {createTestDatabase} from '../helpers/postgres.js'
import {call, startServerOn, WRITE_KEY} from '../helpers/simulator.js'
import {openStream} from '../helpers/sse.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

/**
 * Servers on a new database with the schemas `schemas`, one per name given (`team_a`…), each on its
 * schema alone (`?options=-c search_path=team_a`), as teams share one hosted database; and `admin`,
 * connected to that database at `url`.
 */
async function serversOnSchemas(schemas: string[], servers: string[]) {
  const db = await createTestDatabase({empty: true})
  cleanup.push(() => db.drop())
  const admin = new pg.Client({connectionString: db.url})
  await admin.connect()
  await admin.query(schemas.map((schema) => `CREATE SCHEMA ${schema}`).join('; '))
  // the spare databases of the test helpers keep public's schema only
  cleanup.push(async () => {
    await admin.query(`DROP SCHEMA ${schemas.join(', ')} CASCADE`)
    await admin.end()
  })
  const started = await Promise.all(
    servers.map((schema) => {
      const url = new URL(db.url)
      url.searchParams.set('options', `-c search_path=${schema}`)
      return startServerOn(url.toString())
    }),
  )
  cleanup.push(...started.map((server) => () => server.close()))
  return {admin, url: db.url, servers: started}
}

const push = (server: RunningServer, id: string) =>
  call(server.url, 'PUT', `/v1/checks/external/${id}`, {body: checkWith([['a', 1, 100]])})

it('two sandboxes on two schemas of one database are apart: each is alone, and neither notifies the other', async () => {
  const {admin, url, servers} = await serversOnSchemas(['team_a', 'team_b'], ['team_a', 'team_b'])
  // every channel either may notify on, then one that says the pushes before it were all heard
  const listening = new pg.Client({connectionString: url})
  await listening.connect()
  cleanup.push(() => listening.end())
  const heard: string[] = []
  listening.on('notification', ({channel}) => heard.push(channel))
  const channels = ['public', 'team_a', 'team_b'].flatMap((schema) => Object.values(scopeOf(schema)).slice(0, 2))
  await listening.query([...channels, 'tablepay_test_end'].map((channel) => `LISTEN ${channel}`).join('; '))

  for (const server of servers) expect((await push(server, 't1')).status).toBe(201)
  // a notification is heard in commit order: this one comes after any the pushes sent
  await admin.query('NOTIFY tablepay_test_end')
  await expect.poll(() => heard.includes('tablepay_test_end')).toBe(true)
  // an instance surely alone notifies nobody (docs/postgres.md, "Reads while alone")
  expect(heard).toEqual(['tablepay_test_end'])
})

it("two instances on one schema other than public are one sandbox: one's push reaches the other's live stream", async () => {
  const {
    servers: [first, second],
  } = await serversOnSchemas(['team_a'], ['team_a', 'team_a'])
  const stream = await openStream(`${second!.url}/v1/sim/stream`, {authorization: `Bearer ${WRITE_KEY}`})
  cleanup.push(async () => stream.close())
  expect((await push(first!, 't1')).status).toBe(201)
  await stream.until((text) => text.includes('"type":"check.created"'))
  expect((await call(second!.url, 'GET', '/v1/checks/external/t1')).status).toBe(200)
})

it('a start on a schema the URL names that does not exist fails (exit 1), saying to make it', async () => {
  const db = await createTestDatabase({empty: true})
  cleanup.push(() => db.drop())
  const url = new URL(db.url)
  url.searchParams.set('options', '-c search_path=team_x')
  const refused = await runCommand(['serve', '--port', '0', '--database', url.toString()])
  expect(refused.code).toBe(1)
  expect(refused.stderr.replace(/\s*›\s*/g, ' ')).toContain(
    'CREATE SCHEMA team_x if it is missing; tablepay makes its tables at start: GRANT USAGE, CREATE ON SCHEMA team_x TO postgres',
  )
})
