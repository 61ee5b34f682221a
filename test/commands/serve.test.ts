import {existsSync} from 'node:fs'
import {execFile} from 'node:child_process'
import {mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile} from 'node:fs/promises'
import {createServer, type Server} from 'node:http'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {afterAll, beforeAll, describe, expect, it, onTestFinished} from 'vitest'
import {
  type CliServer,
  IN_MEMORY,
  ROOT,
  runCommand,
  signalledWhileStarting,
  spawnRunning,
  spawnServe,
  startCliServer,
  WRITE_KEY,
} from '../helpers/cli.js'
import {checkWith} from '../helpers/checks.js'

describe('serve --json --memory', () => {
  it('prints one ready line with the /v1 URL and the seeded accounts, and exits 0 on SIGTERM', async () => {
    const server = await startCliServer()
    expect(server.ready).toMatchObject({status: 'ready', data_dir: null})
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/)
    expect(server.ready.accounts[0]).toMatchObject({id: 'acct_demo', locations: [{id: 'loc_main', name: 'Main Room'}]})
    expect(server.ready.accounts[0]!.api_keys.map((k) => k.key)).toEqual(['tp_test_demo_write', 'tp_test_demo_read'])
    expect((await fetch(`${server.url}/health`)).status).toBe(200)

    expect(await server.stop()).toBe(0)
    expect(server.stdout().trimEnd().split('\n')).toHaveLength(1)
  })
  it('answers a path no route takes 404 whatever characters it holds, writing nothing of it to stderr', async () => {
    const server = await startCliServer()
    const origin = new URL(server.url).origin
    for (const path of ['/%C3%BC', '/v1/%C3%BCx', '/v1/sim/%01', '/t/x/%E2%9C%93']) {
      const answer = await fetch(`${origin}${path}`, {headers: {authorization: `Bearer ${WRITE_KEY}`}})
      expect([path, answer.status, ((await answer.json()) as {error: {code: string}}).error.code]).toEqual([
        path,
        404,
        'not_found',
      ])
    }
    expect(await server.stop()).toBe(0)
    expect(server.stderr()).toBe('Stopping tablepay…\n')
  })
  it('a stop that waits for an answer under way says, after 2 s, that Ctrl+C again ends it, and promises nothing kept', async () => {
    const server = await startCliServer()
    const headers = {authorization: `Bearer ${WRITE_KEY}`, 'content-type': 'application/json'}
    // an answer a fault holds for a minute
    const fault = await fetch(`${server.url}/sim/faults`, {
      method: 'POST',
      headers,
      body: JSON.stringify({match: {method: 'GET', path: '/v1/locations'}, delay_ms: 60_000, times: 1}),
    })
    expect(fault.status).toBe(201)
    const held = fetch(`${server.url}/locations`, {headers}).catch(() => undefined)
    const remaining = async () =>
      ((await (await fetch(`${server.url}/sim/faults`, {headers})).json()) as {data: {remaining: number}[]}).data.map(
        (f) => f.remaining,
      )
    await expect.poll(remaining).not.toEqual([1])
    const exited = server.kill('SIGINT')
    await server.waitForStderr('Ctrl+C again stops at once')
    expect(server.stderr()).toBe(
      'Stopping tablepay…\nStill stopping: waiting for what is under way. Ctrl+C again stops at once.\n',
    )
    void server.kill('SIGINT')
    expect(await exited).toBe(130)
    await held
  })
  it('a SIGTERM while it starts stops it once started, exit 0, with no ready line: a CI timeout of a slow start', async () => {
    const server = await signalledWhileStarting((seed) => [
      'serve',
      '--port',
      '0',
      '--memory',
      '--json',
      '--seed',
      seed,
    ])
    expect(await server.exited).toBe(0)
    expect([server.stdout(), server.stderr()]).toEqual(['', 'Stopping tablepay…\n'])
  })
})

describe('serve --seed', () => {
  it('finds fixtures/seed.json in the package when the directory it runs in has none, as in a project', async () => {
    const project = await mkdtemp(join(tmpdir(), 'tablepay-project-'))
    const serve = spawnRunning(
      ['serve', '--port', '0', '--memory', '--json', '--seed', 'fixtures/seed.json'],
      {},
      {
        cwd: project,
      },
    )
    try {
      const stdout = await serve.waitForOutput('\n')
      const ready = JSON.parse(stdout.slice(0, stdout.indexOf('\n'))) as CliServer['ready']
      expect(ready.accounts[0]!.api_keys.map((k) => k.key)).toEqual(['tp_test_demo_write', 'tp_test_demo_read'])
    } finally {
      await serve.stop()
      await rm(project, {recursive: true, force: true})
    }
  })

  it('names a seed that is a directory, one not JSON, one not a seed, a --data path that is a file, and what to do (exit 2)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tablepay-serve-'))
    try {
      // a directory where the file should be: what to give instead
      const folder = await runCommand(['serve', '--port', '0', '--memory', '--seed', dir])
      expect([folder.code, folder.stderr.replaceAll(/\s*\n ›\s*/g, ' ')]).toEqual([
        2,
        expect.stringContaining(`seed: ${dir} cannot be read: EISDIR`),
      ])
      expect(folder.stderr.replaceAll(/\s*\n ›\s*/g, ' ')).toContain('Give the path of a JSON file you can read.')
      const file = join(dir, 'seed.json')
      await writeFile(file, '{not json')
      const seed = await runCommand(['serve', '--port', '0', '--memory', '--seed', file])
      expect(seed.code).toBe(2)
      expect(seed.stderr).toContain(`seed: ${file} is not JSON`)
      // a byte order mark first is no reason: the next refusal is the seed's own
      await writeFile(file, '\uFEFF{"accounts": [{"id": "acct_x", "name": "X", "locations": [], "api_keys": []}]}')
      const marked = await runCommand(['serve', '--port', '0', '--memory', '--seed', file])
      expect(marked.stderr).toContain(`seed: ${file} is not a valid seed: accounts.0.locations:`)
      await writeFile(file, JSON.stringify({accounts: [{id: 'acct_x', name: 'X', locations: [], api_keys: []}]}))
      const invalid = await runCommand(['serve', '--port', '0', '--memory', '--seed', file])
      expect(invalid.code).toBe(2)
      expect(invalid.stderr).toContain(`seed: ${file} is not a valid seed: accounts.0.locations:`)
      expect(invalid.stderr.replaceAll(/\s*\n ›\s*/g, ' ')).toContain(
        'See fixtures/seed.json, the example the package ships.',
      )
      // a line, not a stack: a stack is what a bug prints
      expect(invalid.stderr).not.toMatch(/\n\s+at /)
      // more endpoints than an account may have, as the API refuses the next
      const account = JSON.parse(await readFile(join(ROOT, 'fixtures/seed.json'), 'utf8')).accounts[0]
      const secret = `whsec_${'1'.repeat(32)}`
      const endpoints = Array.from({length: 101}, (_, i) => ({url: `https://example.com/${i}`, secret}))
      await writeFile(file, JSON.stringify({accounts: [{...account, webhook_endpoints: endpoints}]}))
      const many = await runCommand(['serve', '--port', '0', '--memory', '--seed', file])
      expect(many.code).toBe(2)
      expect(many.stderr).toContain(`would have 101 webhook endpoints, more than the 100 an account may have`)
      // 36 MB of empty objects would take gigabytes parsed: weighed, not parsed, as an import is
      await writeFile(file, `{"accounts":[${'{},'.repeat(12_000_000)}{}]}`)
      const large = await runCommand(['serve', '--port', '0', '--memory', '--seed', file])
      expect(large.code).toBe(2)
      expect(large.stderr).toMatch(/seed: .* is not read: it would take up to 1\.\d\d GiB of memory once read/)
      // a file that never ends is read no further than an import takes
      const endless = await runCommand(['serve', '--port', '0', '--memory', '--seed', '/dev/zero'])
      expect([endless.code, endless.stderr.replaceAll(/\s*\n ›\s*/g, ' ')]).toEqual([
        2,
        expect.stringContaining('seed: /dev/zero is not read: it holds more than 256 MiB'),
      ])
      const data = await runCommand(['serve', '--port', '0', '--data', file])
      expect(data.code).toBe(2)
      expect(data.stderr).toContain(`cannot make the data dir ${file}: a file is in the way`)
    } finally {
      await rm(dir, {recursive: true, force: true})
    }
  })

  it('refuses a seed file that is neither here nor in the package as a wrong command line (exit 2)', async () => {
    const {code, stderr} = await runCommand([
      'serve',
      '--port',
      '0',
      '--memory',
      '--seed',
      'fixtures/no-such-seed.json',
    ])
    expect(code).toBe(2)
    expect(stderr).toContain('No seed file at fixtures/no-such-seed.json')
  })

  it('refuses an empty --data as empty, writing nothing in the working directory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tablepay-serve-'))
    try {
      // exec first: it starts the same server and ends with its command (serve, on a wrong reading, would serve on)
      for (const args of [
        ['exec', '-d', '', '--', 'true'],
        ['serve', '--port', '0', '--data', ''],
      ]) {
        const {code, stderr} = await runCommand(args, {cwd: dir})
        expect([code, stderr], args.join(' ')).toEqual([2, expect.stringContaining('--data: is empty')])
      }
      expect(await readdir(dir)).toEqual([])
    } finally {
      await rm(dir, {recursive: true, force: true})
    }
  })

  it('refuses an empty --seed as empty, a wrong command line, not the package folder it named', async () => {
    const {code, stderr} = await runCommand(['serve', '--port', '0', '--memory', '--seed', ''])
    expect([code, stderr]).toEqual([2, expect.stringContaining('--seed: is empty')])
    expect(stderr).toContain('Code: invalid_usage')
  })
})

describe('serve --data DIR that cannot be made', () => {
  // Node's recursive mkdir never settles under /proc: the test's own timeout bounds a hang, and the process
  // is killed when the test ends, whatever its result
  function spawnKilledAfter(args: string[], env?: Record<string, string>) {
    const serve = spawnRunning(args, env)
    onTestFinished(() => void serve.kill('SIGKILL'))
    return serve
  }

  async function serveOn(data: string, ...more: string[]) {
    const serve = spawnKilledAfter(['serve', '--port', '0', '--data', data, ...more])
    return {code: await serve.exited, stdout: serve.stdout(), stderr: serve.stderr()}
  }

  it('exits 2 at once for /proc/x, saying to pick another --data or --memory', {timeout: 15_000}, async () => {
    const {code, stderr} = await serveOn('/proc/x')
    expect(code).toBe(2)
    expect(stderr).toContain('cannot make the data dir /proc/x')
    expect(stderr).toContain('Give --data a directory you can write, or --memory')
    expect(stderr).toContain('server_start_failed')
  })

  it('exits 1 for a data dir whose disk refuses a read, naming the dir and what to do', {timeout: 15_000}, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tablepay-serve-'))
    try {
      // a directory where a document should be: reading it fails with EISDIR
      await mkdir(join(dir, 'checks.json'))
      const {code, stderr} = await serveOn(dir)
      expect(code).toBe(1)
      expect(stderr).toContain(`store: starting on ${dir} failed (EISDIR`)
      expect(stderr.replace(/\s*›\s*/g, ' ')).toContain(`${join(dir, 'checks.json')}):`)
      expect(stderr).toContain('move out of it the directory that stands where one of its files should be')
      expect(stderr).toContain('server_start_failed')
    } finally {
      await rm(dir, {recursive: true, force: true})
    }
  })

  for (const again of [false, true]) {
    it(`a stop after its data dir was removed${again ? ' and made again' : ''} exits 0 saying the changes went with it, not that they are kept`, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'tablepay-serve-'))
      const server = await startCliServer(['--data', dir, '--seed', 'fixtures/seed.json'])
      onTestFinished(() => void server.kill('SIGKILL'))
      await rm(dir, {recursive: true, force: true})
      if (again) await mkdir(dir)
      expect(await server.stop()).toBe(0)
      const said = server.stderr().replaceAll(/\s*\n\s*/g, ' ')
      expect(said).toContain(`store: stopping on ${dir} failed: ${dir} was removed while tablepay ran`)
      expect(said).not.toMatch(/is kept|in its journal|Code: ENOENT/)
    })
  }

  it('a stop whose compaction the disk refuses still exits 0, one ready line on stdout, the trouble on stderr', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tablepay-serve-'))
    try {
      const server = await startCliServer(['--data', dir, '--seed', 'fixtures/seed.json'])
      onTestFinished(() => void server.kill('SIGKILL'))
      const pushed = await fetch(`${server.url}/checks/external/stop-1`, {
        method: 'PUT',
        headers: {authorization: `Bearer ${WRITE_KEY}`, 'content-type': 'application/json'},
        body: await readFile(join(ROOT, 'fixtures', 'checks', 'open.json')),
      })
      expect(pushed.status).toBe(201)
      // a directory where the stop's compaction writes the checks' next document: writing it fails with EISDIR
      await mkdir(join(dir, '.checks.json.tmp'))
      expect(await server.stop()).toBe(0)
      expect(server.stdout().trimEnd().split('\n')).toHaveLength(1)
      expect(server.stderr()).toContain(`store: stopping on ${dir} failed (EISDIR`)
      expect(server.stderr()).toContain('Every change it answered is in its journal: the next start reads it.')
      // a start names the directory in the way
      const refused = await serveOn(dir)
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain('move out of it the directory that stands where one of its files should be')
      // and once it is moved, reads the journal
      await rm(join(dir, '.checks.json.tmp'), {recursive: true})
      const again = await startCliServer(['--data', dir, '--seed', 'fixtures/seed.json'])
      onTestFinished(() => void again.kill('SIGKILL'))
      const read = await fetch(`${again.url}/checks/external/stop-1`, {headers: {authorization: `Bearer ${WRITE_KEY}`}})
      expect(read.status).toBe(200)
      expect(await again.stop()).toBe(0)
    } finally {
      await rm(dir, {recursive: true, force: true})
    }
  })

  it(
    'exits 2 for a dir under a regular file, with the JSON error body under --json as one line',
    {timeout: 15_000},
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'tablepay-serve-'))
      try {
        const under = join(dir, 'file', 'data')
        await writeFile(join(dir, 'file'), '')
        // the lean path, and oclif's (a flag the lean path leaves to it): either prints JSON lines
        for (const more of [[], ['--cors', 'http://a.example']]) {
          const {code, stdout} = await serveOn(under, '--json', ...more)
          expect(code).toBe(2)
          expect(stdout).toMatch(/^\{.*\}\n$/)
          expect(JSON.parse(stdout).error).toMatchObject({
            code: 'server_start_failed',
            message: expect.stringContaining(`cannot make the data dir ${under}: a file is in the way`),
          })
        }
      } finally {
        await rm(dir, {recursive: true, force: true})
      }
    },
  )

  it(
    'starts when the registry of running servers cannot be made (TABLEPAY_HOME=/proc/x), and says what that means',
    {timeout: 15_000},
    async () => {
      const serve = spawnKilledAfter(['serve', '--port', '0', '--memory', '--json'], {TABLEPAY_HOME: '/proc/x'})
      expect(JSON.parse(await serve.waitForOutput('\n'))).toMatchObject({status: 'ready'})
      await serve.waitForStderr('Give TABLEPAY_HOME a directory you can write')
      expect(serve.stderr()).toContain('Not listed in /proc/x/servers (')
    },
  )
})

describe('serve --data DIR', () => {
  let dir: string
  let server: CliServer

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tablepay-serve-'))
    server = await startCliServer(['--data', dir, '--seed', 'fixtures/seed.json'])
  })

  afterAll(async () => {
    await server.stop()
    await rm(dir, {recursive: true, force: true})
  })

  it('refuses a second server on the same dir with a clear message and a non-zero exit', async () => {
    const second = await runCommand(['serve', '--port', '0', '--data', dir])
    expect(second.code).not.toBe(0)
    expect(second.stderr).toContain('in use by another tablepay server')
    expect(second.stderr).toContain('server_start_failed')
  })

  it('with --json, the refusal is a JSON error body', async () => {
    const second = await runCommand(['serve', '--port', '0', '--data', dir, '--json'])
    expect(second.code).toBe(1)
    expect(JSON.parse(second.stdout).error).toMatchObject({
      code: 'server_start_failed',
      message: expect.stringContaining('in use'),
    })
  })

  it('lets clients pointed at the dir find the URL and a write key without flags', async () => {
    const {code, stdout} = await runCommand(['locations', 'list', '--json'], {env: {TABLEPAY_DATA: dir}})
    expect(code).toBe(0)
    expect(JSON.parse(stdout).data.map((l: {id: string}) => l.id)).toEqual(['loc_main'])
  })
})

describe('serve --data DIR --fsync', () => {
  it('answers 503, not 201, to a push whose journal line a full disk cut short, and keeps what it answered', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tablepay-fsync-'))
    onTestFinished(() => rm(dir, {recursive: true, force: true}))
    const server = await startCliServer(['--data', dir, '--seed', 'fixtures/seed.json', '--fsync'])
    onTestFinished(() => void server.kill('SIGKILL'))
    const push = (id: string, items: number) =>
      fetch(`${server.url}/checks/external/${id}`, {
        method: 'PUT',
        headers: {authorization: `Bearer ${WRITE_KEY}`, 'content-type': 'application/json'},
        body: JSON.stringify(checkWith(Array.from({length: items}, (_, i) => [`l${i}`, 1, 100, 'x'.repeat(400)]))),
      })
    expect((await push('kept', 1)).status).toBe(201)
    // a file size limit cuts a write that crosses it short, then refuses the next, as a disk that fills does
    const {pid} = JSON.parse(await readFile(join(dir, 'server.json'), 'utf8')) as {pid: number}
    const journal = (await readdir(dir)).find((name) => name.startsWith('journal.'))!
    const limit = (await stat(join(dir, journal))).size + 20_000
    await promisify(execFile)('prlimit', [`--pid=${pid}`, `--fsize=${limit}`])
    const cut = await push('cut', 400)
    expect(cut.status).toBe(503)
    expect(((await cut.json()) as {error: {code: string}}).error.code).toBe('storage_unavailable')
    await server.kill('SIGKILL')
    // the cut line is the journal's torn end, which the next start drops
    const again = await startCliServer(['--data', dir])
    onTestFinished(async () => void (await again.stop()))
    const read = (id: string) =>
      fetch(`${again.url}/checks/external/${id}`, {headers: {authorization: `Bearer ${WRITE_KEY}`}})
    expect([(await read('kept')).status, (await read('cut')).status]).toEqual([200, 404])
  })
})

describe('serve without --json', () => {
  it('prints a banner with the URL, the data dir, the keys and a curl example', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tablepay-serve-'))
    const server = spawnServe(['--data', dir, '--seed', 'fixtures/seed.json'])
    try {
      const text = await server.waitForOutput('Press Ctrl+C')
      expect(text).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+\/v1/)
      expect(text).toContain(dir)
      expect(text).toMatch(/write key\s+tp_test_demo_write/)
      expect(text).toMatch(/read key\s+tp_test_demo_read/)
      expect(text).toContain(`curl -H "Authorization: Bearer ${WRITE_KEY}"`)
      expect(existsSync(join(dir, 'server.json'))).toBe(true)
    } finally {
      expect(await server.stop()).toBe(0)
      expect(existsSync(join(dir, 'server.json'))).toBe(false)
      await rm(dir, {recursive: true, force: true})
    }
  })
})

/** A port held by another HTTP server, which answers 200 to anything (a health check too). */
async function holdPort(): Promise<{port: number; server: Server}> {
  const server = createServer((_req, res) => res.end('{"status": "ok"}'))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {port: (server.address() as {port: number}).port, server}
}

describe('serve --port N on a port another program holds', () => {
  let held: {port: number; server: Server}
  beforeAll(async () => {
    held = await holdPort()
  })
  afterAll(() => new Promise<void>((resolve) => held.server.close(() => resolve())))

  it('exits 1 naming the port and suggesting --port 0, instead of moving to another port', async () => {
    const {code, stdout, stderr} = await runCommand(['serve', '--port', String(held.port), '--memory'])
    expect(code).toBe(1)
    expect(stdout).not.toContain('listening')
    expect(stderr).toContain(`port ${held.port} on 127.0.0.1`)
    expect(stderr).toContain('in use')
    expect(stderr).toContain('--port 0')
  })

  it('with --json, prints the refusal as a JSON error body and no ready line', async () => {
    const {code, stdout} = await runCommand(['serve', '--port', String(held.port), '--memory', '--json'])
    expect(code).toBe(1)
    const {error} = JSON.parse(stdout)
    expect(error).toMatchObject({code: 'server_start_failed', message: expect.stringContaining(`port ${held.port}`)})
    expect(stdout).not.toContain('ready')
  })
})

describe('serve --host that is no address of this machine', () => {
  it('exits 1 naming the host and what to pass instead: one that is no address at all too', async () => {
    for (const host of ['999.1.1.1', 'no-such-host.invalid']) {
      const {code, stderr} = await runCommand(['serve', '--port', '0', '--memory', '--host', host])
      expect(code, host).toBe(1)
      expect(stderr, host).toContain(`${host} is no address and no name this machine resolves`)
      expect(stderr, host).toContain('Pass an address of this machine to --host')
    }
  })
})

describe('serve --cors', () => {
  it('lets pages of the origins given call the API, and no others', async () => {
    const server = await startCliServer([...IN_MEMORY, '--cors', 'http://localhost:5173, https://pos.example'])
    try {
      const asked = (origin: string) =>
        fetch(`${server.url}/locations`, {
          method: 'OPTIONS',
          headers: {origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization'},
        })
      for (const origin of ['http://localhost:5173', 'https://pos.example']) {
        const answer = await asked(origin)
        expect(answer.status).toBe(204)
        expect(answer.headers.get('access-control-allow-origin')).toBe(origin)
      }
      expect((await asked('https://elsewhere.example')).headers.get('access-control-allow-origin')).toBeNull()
    } finally {
      await server.stop()
    }
  })

  it('refuses what is not an origin, naming it', async () => {
    const {code, stderr} = await runCommand(['serve', '--port', '0', '--memory', '--cors', 'http://localhost:5173/app'])
    expect(code).not.toBe(0)
    expect(stderr).toContain('"http://localhost:5173/app" is not an origin')
  })
})

describe('serve --public-url', () => {
  it('makes guest links from the URL given, without its trailing slash', async () => {
    const server = await startCliServer([...IN_MEMORY, '--public-url', 'https://lb.example/'])
    try {
      const pushed = await fetch(`${server.url}/checks/external/pub-1`, {
        method: 'PUT',
        headers: {authorization: `Bearer ${WRITE_KEY}`, 'content-type': 'application/json'},
        body: JSON.stringify({
          table: {number: '1'},
          status: 'open',
          items: [],
          totals: {subtotal_cents: 0, tax_cents: 0, total_cents: 0},
        }),
      })
      expect(((await pushed.json()) as {guest_url: string}).guest_url).toMatch(/^https:\/\/lb\.example\/t\//)
    } finally {
      await server.stop()
    }
  })

  it('the banner says guest links are made from it', async () => {
    const server = spawnServe(['--memory', '--public-url', 'https://lb.example/tp/'])
    try {
      expect(await server.waitForOutput('Press Ctrl+C')).toContain(
        'Guest links: https://lb.example/tp/t/… (--public-url)',
      )
    } finally {
      expect(await server.stop()).toBe(0)
    }
  })

  it('refuses what is not an http(s) URL, naming it (exit 2)', async () => {
    const {code, stderr} = await runCommand(['serve', '--port', '0', '--memory', '--public-url', 'ftp://lb.example'])
    expect(code).toBe(2)
    expect(stderr).toContain('"ftp://lb.example" is not a URL clients can reach the server at')
  })
})
