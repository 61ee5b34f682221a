import {chmod, readFile, stat, writeFile} from 'node:fs/promises'
import {createServer} from 'node:http'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {startServeFlags} from '../helpers/api-server.js'
import {cliFor, runCommand, spawnServe, WRITE_KEY} from '../helpers/cli.js'
import {checkWith} from '../helpers/checks.js'
import {call, makeTempDir, OTHER_KEY, startTestServer, writeSeed} from '../helpers/simulator.js'
import {startSeam, startServer} from '../../src/server/start.js'
import {startSimulator} from '../../src/testing.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

async function setup(args: string[] = []) {
  const server = await startServeFlags(args)
  cleanup.push(() => server.stop())
  const dir = await makeTempDir()
  return {server, dir, ...cliFor(server)}
}

const push = (json: (args: string[]) => Promise<any>, id: string) =>
  json(['checks', 'push', id, '-f', 'fixtures/checks/open.json'])

describe('tablepay snapshots', () => {
  it('save, list, restore and delete a snapshot, in words and in --json', async () => {
    const {cli, json} = await setup()
    await push(json, 't1')
    const saved = await cli(['snapshots', 'save', 'lunch'])
    expect([saved.code, saved.stdout]).toEqual([
      0,
      expect.stringMatching(/^Saved lunch \(1 check, 1 event, 0 deliveries, 0 webhook endpoints, saved .+\)\.\n$/),
    ])
    await push(json, 't2')
    const listed = await cli(['snapshots', 'list'])
    expect(listed.stdout).toMatch(/NAME +SAVED +HOLDS\nlunch +\S.* +1 check, 1 event/)
    expect((await json(['snapshots', 'list'])).data.map((s: {name: string}) => s.name)).toEqual(['lunch'])

    const restored = await json(['snapshots', 'restore', 'lunch'])
    expect(restored).toMatchObject({object: 'snapshot', name: 'lunch', counts: {checks: 1}})
    expect((await json(['checks', 'list'])).data.map((c: {external_id: string}) => c.external_id)).toEqual(['t1'])

    expect((await cli(['snapshots', 'delete', 'lunch'])).stdout).toBe('Deleted snapshot lunch.\n')
    expect((await cli(['snapshots', 'list'])).stdout).toBe('No snapshots.\n')
  })

  it('export writes the document to a file or stdout, and import takes it back', async () => {
    const {cli, json, dir} = await setup()
    await push(json, 't1')
    await json(['snapshots', 'save', 'one'])
    const file = join(dir, 'one.json')
    expect((await cli(['snapshots', 'export', 'one', '-o', file])).stdout).toBe(`Wrote snapshot one to ${file}.\n`)
    const document = JSON.parse(await readFile(file, 'utf8'))
    expect(document).toMatchObject({tablepay_snapshot: 1, name: 'one', account: 'acct_demo'})
    // it holds the endpoints' secrets: readable by its owner only, as the data dir, a file written over too
    expect((await stat(file)).mode & 0o777).toBe(0o600)
    await chmod(file, 0o644)
    await cli(['snapshots', 'export', 'one', '-o', file])
    expect((await stat(file)).mode & 0o777).toBe(0o600)
    expect(JSON.parse((await cli(['snapshots', 'export', 'one'])).stdout)).toEqual(document)
    const refused = await cli(['snapshots', 'export', 'one', '-o', join(dir, 'missing', 'one.json')])
    expect(refused).toMatchObject({code: 1, stderr: expect.stringContaining('Write to a directory that exists')})
    // a directory named instead of a file is refused as it is, its mode kept
    const before = (await stat(dir)).mode
    expect(await cli(['snapshots', 'export', 'one', '-o', dir])).toMatchObject({
      code: 1,
      stderr: expect.stringContaining(`Cannot write ${dir}`),
    })
    expect((await cli(['snapshots', 'export', 'one', '-o', dir])).stderr).toContain(
      `Name a file in it (${join(dir, 'NAME.json')})`,
    )
    expect((await stat(dir)).mode).toBe(before)

    await writeFile(file, JSON.stringify({...document, name: 'two'}))
    expect((await cli(['snapshots', 'import', file])).stdout).toMatch(/^Imported two \(1 check, 1 event/)
    await push(json, 't2')
    await json(['snapshots', 'restore', 'two'])
    expect((await json(['checks', 'list'])).data).toHaveLength(1)
  })

  it('exits 2 with a hint for a malformed or unknown name and a file that is no snapshot, and changes nothing', async () => {
    const {cli, json, dir, server} = await setup()
    await json(['snapshots', 'save', 'kept'])
    const bad = await cli(['snapshots', 'save', 'Not A Name'])
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining('"Not A Name" is not a snapshot name')])
    const reserved = await cli(['snapshots', 'save', 'import'])
    expect([reserved.code, reserved.stderr]).toEqual([2, expect.stringContaining('and not import')])
    const unknown = await cli(['snapshots', 'restore', 'missing'])
    expect([unknown.code, unknown.stderr]).toEqual([2, expect.stringContaining('No snapshot missing in this account')])
    expect(unknown.stderr).toContain('tablepay snapshots list')
    // said once: the server's refusal is not printed again under it
    expect(unknown.stderr).not.toContain('Caused by')
    const deleted = await cli(['snapshots', 'delete', 'missing', '--json'])
    expect(deleted.code).toBe(2)
    // the server's own body, as every API command prints it
    expect(JSON.parse(deleted.stdout).error).toEqual({
      code: 'not_found',
      message: expect.not.stringContaining('\n'),
      request_id: expect.stringMatching(/^req_/),
      suggestions: [expect.stringContaining('tablepay snapshots list')],
    })
    expect((await cli(['snapshots', 'export', 'missing'])).code).toBe(2)

    const file = join(dir, 'v2.json')
    const {stdout} = await cli(['snapshots', 'export', 'kept'])
    await writeFile(file, JSON.stringify({...JSON.parse(stdout), tablepay_snapshot: 2, name: 'v2'}))
    const refused = await cli(['snapshots', 'import', file, '--json'])
    expect(refused.code).toBe(2)
    expect(JSON.parse(refused.stdout).error).toMatchObject({
      code: 'validation_failed',
      request_id: expect.stringMatching(/^req_/),
      details: [{path: 'tablepay_snapshot', message: expect.any(String)}],
    })
    // each refusal of the file says what to give instead, in this command's terms
    await writeFile(file, 'not json')
    const notJson = await cli(['snapshots', 'import', file])
    expect([notJson.code, notJson.stderr]).toEqual([
      2,
      expect.stringContaining('tablepay snapshots export NAME -o FILE'),
    ])
    const missing = await cli(['snapshots', 'import', join(dir, 'missing.json')])
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringContaining('Check the path')])
    const empty = await runCommand(['snapshots', 'import', '-'], {env: server.env, input: ''})
    expect([empty.code, empty.stderr]).toEqual([
      2,
      expect.stringContaining('stdin is empty: pass the file instead of -'),
    ])
    expect((await json(['snapshots', 'list'])).data.map((s: {name: string}) => s.name)).toEqual(['kept'])
  })

  it('save exits 2 when the server refuses the name, as the other snapshot commands do', async () => {
    // a server whose names are stricter than this CLI's: its 422 is a wrong command line, nothing was saved
    const refusing = createServer((_req, res) => {
      res.writeHead(422, {'content-type': 'application/json'})
      res.end(
        JSON.stringify({
          error: {type: 'invalid_request_error', code: 'validation_failed', message: 'name: taken', param: 'name'},
        }),
      )
    })
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve))
    cleanup.push(() => new Promise((resolve) => refusing.close(resolve)))
    const url = `http://127.0.0.1:${(refusing.address() as {port: number}).port}`
    const {cli} = cliFor({env: {TABLEPAY_URL: url, TABLEPAY_API_KEY: 'tp_test_demo_write'}})
    const refused = await cli(['snapshots', 'save', 'kept'])
    expect([refused.code, refused.stderr]).toEqual([2, expect.stringContaining('name: taken')])
  })
})

describe('snapshots restore of ids another account holds', () => {
  it('points to an import into that account or another server, never to importing it here again', async () => {
    // two accounts: acct_demo exports a snapshot, acct_other imports it and restores it
    const server = await startTestServer({memory: true})
    const dir = await makeTempDir()
    cleanup.push(() => server.close())
    const env = {TABLEPAY_URL: `${server.url}/v1`, TABLEPAY_API_KEY: WRITE_KEY}
    const mine = cliFor({env})
    const theirs = cliFor({env: {...env, TABLEPAY_API_KEY: OTHER_KEY}})
    await push(mine.json, 't1')
    await mine.json(['snapshots', 'save', 'lunch'])
    const file = join(dir, 'lunch.json')
    await mine.json(['snapshots', 'export', 'lunch', '-o', file])
    await theirs.json(['snapshots', 'import', file])

    const refused = await theirs.cli(['snapshots', 'restore', 'lunch'])
    expect([refused.code, refused.stderr]).toEqual([2, expect.stringContaining("which is account acct_demo's")])
    expect(refused.stderr).toContain('import it into acct_demo, or into a server where no other account holds')
    // an import into this account again keeps the ids, and is refused again: the hint names where else
    expect(refused.stderr).not.toContain('and import that file')
    const {error} = JSON.parse((await theirs.cli(['snapshots', 'restore', 'lunch', '--json'])).stdout)
    expect(error.suggestions).toEqual([
      "`tablepay snapshots export lunch -o lunch.json` exports it; `tablepay snapshots import lunch.json --api-key KEY` imports it into KEY's account, `tablepay serve --import lunch.json` into the server it starts.",
    ])
  })
})

describe('serve --import', () => {
  it('starts with each exported snapshot stored and restored into its account', async () => {
    const first = await setup()
    await push(first.json, 't1')
    await push(first.json, 't2')
    await first.json(['snapshots', 'save', 'two-tables'])
    const file = join(first.dir, 'two-tables.json')
    await first.cli(['snapshots', 'export', 'two-tables', '-o', file])

    const second = await setup(['--import', file])
    expect((await second.json(['checks', 'list'])).data.map((c: {external_id: string}) => c.external_id)).toEqual([
      't2',
      't1',
    ])
    expect((await second.json(['snapshots', 'list'])).data.map((s: {name: string}) => s.name)).toEqual(['two-tables'])
    // without --json, the banner says so
    const shown = spawnServe(['--memory', '--seed', 'fixtures/seed.json', '--import', file])
    cleanup.push(() => shown.stop())
    expect(await shown.waitForOutput('Press Ctrl+C')).toContain('Restored: snapshot two-tables into acct_demo')
  })

  it('refuses to start on a file that is no snapshot, or one of an account the server does not have', async () => {
    const dir = await makeTempDir()
    const file = join(dir, 'bad.json')
    await writeFile(file, JSON.stringify({tablepay_snapshot: 2}))
    await expect(startServeFlags(['--import', file])).rejects.toMatchObject({
      oclif: {exit: 2},
      message: expect.stringContaining('is not an exported snapshot: tablepay_snapshot'),
    })
    const other = {
      tablepay_snapshot: 1,
      name: 'x',
      account: 'acct_nobody',
      created_at: new Date().toISOString(),
      records: {},
    }
    await writeFile(file, JSON.stringify(other))
    await expect(startServeFlags(['--import', file])).rejects.toMatchObject({
      oclif: {exit: 2},
      message: expect.stringContaining('account acct_nobody, which this server does not have'),
    })
    // an endpoint holding a NUL, which PostgreSQL cannot query, however valid the rest
    const at = other.created_at
    const endpoint = {
      id: 'we_1',
      object: 'webhook_endpoint',
      url: 'http://127.0.0.1:9/',
      event_types: ['check.created'],
    }
    const stored = {description: 'a\u0000b', status: 'enabled', secret: `whsec_${'1'.repeat(32)}`, consecutive_dead: 0}
    const records = {webhook_endpoints: [{...endpoint, ...stored, created_at: at, updated_at: at}]}
    const odd = {...other, account: 'acct_demo', records}
    await writeFile(file, JSON.stringify(odd))
    await expect(startServeFlags(['--import', file])).rejects.toMatchObject({
      oclif: {exit: 2},
      message: expect.stringContaining('records.webhook_endpoints.0.description: must not contain the NUL character'),
    })
    // an id no route could name, as an import through the API refuses it
    const unnamed = {
      ...odd,
      records: {webhook_endpoints: [{...records.webhook_endpoints[0], id: 'we_1/x', description: ''}]},
    }
    await writeFile(file, JSON.stringify(unnamed))
    await expect(startServeFlags(['--import', file])).rejects.toMatchObject({
      oclif: {exit: 2},
      message: expect.stringContaining('records.webhook_endpoints.0.id: must be we_ then 1-60 letters'),
    })
    // 36 MB of empty objects would take gigabytes parsed: weighed, not parsed
    await writeFile(file, `{"records":{"checks":[${'{},'.repeat(12_000_000)}{}]}}`)
    await expect(startServeFlags(['--import', file])).rejects.toMatchObject({
      oclif: {exit: 2},
      message: expect.stringMatching(/is not read: it would take up to 1\.\d\d GiB of memory once read/),
    })
  })

  it('reads and checks every file before the port opens: a refused start began nothing', async () => {
    const file = join(await makeTempDir(), 'stranger.json')
    const document = {tablepay_snapshot: 1, name: 'x', account: 'acct_nobody', created_at: new Date().toISOString()}
    await writeFile(file, JSON.stringify({...document, records: {}}))
    let listened = false
    startSeam.afterListening = async () => void (listened = true)
    cleanup.push(async () => (startSeam.afterListening = async () => {}))
    await expect(startServer({port: 0, host: '127.0.0.1', imports: [file]})).rejects.toThrow('acct_nobody')
    expect(listened).toBe(false)
  })
})

/** acct_other's locations as its own export holds them. */
async function locationsOf(url: string): Promise<{id: string}[]> {
  expect((await call(url, 'POST', '/v1/sim/snapshots', {body: {name: 'places'}, key: OTHER_KEY})).status).toBe(201)
  return (await call(url, 'GET', '/v1/sim/snapshots/places/export', {key: OTHER_KEY})).body.records.locations
}

/** A document's checks alone, at the first of `locations`: as acct_other would hold them. */
const atTheirs = (document: {records: {checks: object[]}}, locations: {id: string}[]) => ({
  locations,
  checks: document.records.checks.map((check) => ({...check, location_id: locations[0]!.id})),
})

describe('serve --import of files whose restores would clash', () => {
  it('refuses ids another account holds, or an earlier file of another account, before anything is begun', async () => {
    const dir = await makeTempDir()
    const data = join(dir, 'data')
    const seedFile = await writeSeed(dir)
    const server = await startServer({port: 0, host: '127.0.0.1', dataDir: data, seedFile})
    const api = (method: string, path: string, body?: unknown) => call(server.url, method, `/v1${path}`, {body})
    const hook = {url: 'http://127.0.0.1:9/hooks', event_types: ['check.created']}
    expect((await api('POST', '/webhook-endpoints', hook)).status).toBe(201)
    expect((await api('PUT', '/checks/external/t1', checkWith([['a', 1, 500]]))).status).toBe(201)
    expect((await api('POST', '/sim/snapshots', {name: 'mine'})).status).toBe(201)
    const document = (await api('GET', '/sim/snapshots/mine/export')).body
    const otherPlaces = await locationsOf(server.url)
    const [mine, theirs] = [join(dir, 'mine.json'), join(dir, 'theirs.json')]
    await writeFile(mine, JSON.stringify(document))
    await writeFile(theirs, JSON.stringify({...document, account: 'acct_other'}))
    expect((await api('POST', '/sim/reset')).status).toBe(200)
    await server.close()

    let listened = false
    startSeam.afterListening = async () => void (listened = true)
    cleanup.push(async () => (startSeam.afterListening = async () => {}))
    const start = (imports: string[]) => startServer({port: 0, host: '127.0.0.1', dataDir: data, seedFile, imports})
    await expect(start([mine, theirs])).rejects.toThrow(
      new RegExp(`^serve --import: ${theirs} holds \\w+ \\S+, which ${mine} holds too`),
    )
    // more endpoints than an account may have on this server
    await expect(
      startServer({
        port: 0,
        host: '127.0.0.1',
        dataDir: data,
        seedFile,
        imports: [mine],
        limits: {webhook_endpoints: 0},
      }),
    ).rejects.toThrow(`${mine} holds more webhook endpoints (1) than an account may have (0)`)
    expect(listened).toBe(false)
    // a check acct_demo holds once mine.json is restored, which no earlier file restores
    const other = join(dir, 'other.json')
    await writeFile(
      other,
      JSON.stringify({...document, name: 'other', account: 'acct_other', records: atTheirs(document, otherPlaces)}),
    )
    expect(await start([mine]).then((started) => started.close())).toBeUndefined()
    await expect(start([other])).rejects.toThrow(
      `holds checks ${document.records.checks[0].id}, which account acct_demo holds too`,
    )
  })

  it('takes a check whose holder an earlier file restores without it, guest token and all', async () => {
    const dir = await makeTempDir()
    const data = join(dir, 'data')
    const seedFile = await writeSeed(dir)
    const server = await startServer({port: 0, host: '127.0.0.1', dataDir: data, seedFile})
    const api = (method: string, path: string, body?: unknown) => call(server.url, method, `/v1${path}`, {body})
    expect((await api('POST', '/sim/snapshots', {name: 'empty'})).status).toBe(201)
    const empty = (await api('GET', '/sim/snapshots/empty/export')).body
    expect((await api('PUT', '/checks/external/t1', checkWith([['a', 1, 500]]))).status).toBe(201)
    expect((await api('POST', '/sim/snapshots', {name: 'mine'})).status).toBe(201)
    const mine = (await api('GET', '/sim/snapshots/mine/export')).body
    const otherPlaces = await locationsOf(server.url)
    await server.close()
    // acct_demo holds the check until empty.json restores it away; then acct_other may have it
    const [emptyFile, theirs] = [join(dir, 'empty.json'), join(dir, 'theirs.json')]
    await writeFile(emptyFile, JSON.stringify(empty))
    await writeFile(theirs, JSON.stringify({...mine, account: 'acct_other', records: atTheirs(mine, otherPlaces)}))
    const started = await startServer({
      port: 0,
      host: '127.0.0.1',
      dataDir: data,
      seedFile,
      imports: [emptyFile, theirs],
    })
    cleanup.push(() => started.close())
    const [check] = mine.records.checks
    const page = await call(started.url, 'GET', `/t/${check.guest_token}`)
    expect(page.status).toBe(200)
    expect((await call(started.url, 'GET', '/v1/checks')).body.data).toEqual([])
  })
})

describe('sim.snapshots of tablepay/testing', () => {
  it('saves a known state once and restores it before each test', async () => {
    const sim = await startSimulator()
    cleanup.push(() => sim.close())
    const headers = {authorization: `Bearer ${sim.apiKey}`, 'content-type': 'application/json'}
    const check = JSON.parse(await readFile('fixtures/checks/open.json', 'utf8'))
    const body = JSON.stringify({...check, location_id: sim.accounts[0]!.locations[0]!.id})
    expect((await fetch(`${sim.url}/checks/external/t1`, {method: 'PUT', headers, body})).status).toBe(201)
    expect(await sim.snapshots.save('base')).toMatchObject({name: 'base', counts: {checks: 1}})
    for (const id of ['t2', 't3']) {
      expect((await fetch(`${sim.url}/checks/external/${id}`, {method: 'PUT', headers, body})).status).toBe(201)
      expect(await sim.snapshots.restore('base')).toMatchObject({name: 'base'})
      const checks = (await (await fetch(`${sim.url}/checks`, {headers})).json()) as {data: {external_id: string}[]}
      expect(checks.data.map((c) => c.external_id)).toEqual(['t1'])
    }
  })
})
