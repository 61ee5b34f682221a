import {spawnSync} from 'node:child_process'
import {realpathSync} from 'node:fs'
import {mkdir, readdir, realpath, rm, stat, writeFile} from 'node:fs/promises'
import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {checkWith} from '../helpers/checks.js'
import {ROOT as REPO, runCommand, spawnRunning, WRITE_KEY} from '../helpers/cli.js'
import {freePort} from '../helpers/ports.js'
import {makeTempDir} from '../helpers/simulator.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

/** A new empty dir, as the processes started in it name it (getcwd: symbolic links resolved). */
async function tempDir() {
  const dir = await realpath(await makeTempDir())
  cleanup.push(() => rm(dir, {recursive: true, force: true}))
  return dir
}

/** `dir`, made with the directories it is under. */
async function madeDir(dir: string) {
  await mkdir(dir, {recursive: true})
  return dir
}

/**
 * `tablepay serve ARGS` on a free port, started from `cwd` (the repository, unless given), registering in
 * the registry under `home`; resolves on its ready line.
 */
async function serve(home: string, args: string[], cwd?: string) {
  const argv = ['serve', '--json', '--port', '0', '--seed', 'fixtures/seed.json', ...args]
  const server = spawnRunning(argv, {TABLEPAY_HOME: home}, {cwd})
  cleanup.push(() => server.stop())
  const ready = JSON.parse((await server.waitForOutput('\n')).split('\n')[0]!)
  return {...server, url: (ready.url as string).replace(/\/v1$/, '')}
}

/** The pid of a process that has exited, as a server killed without cleaning up leaves it. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '0']).pid
}

// where the repository's servers and clients run, as they name it
const ROOT = realpathSync(REPO)
const ISO_TIME = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z'

/** The line of `several_servers` that names the server at `url` started from `cwd`, whatever its pid and start time. */
const listed = (url: string, cwd: string, keeps: string) =>
  new RegExp(`  - ${literal(url)} \\(pid \\d+, started from ${literal(cwd)} at ${ISO_TIME}, ${literal(keeps)}\\)`)
const literal = (text: string) => text.replaceAll(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * A client run with no --url, --api-key or TABLEPAY_URL/KEY/DATA, in `cwd`, else in an empty dir of its own
 * (never the repo, where a server the developer runs keeps its .tablepay): it looks for a .tablepay there and above.
 */
const client = async (home: string, args: string[], env: Record<string, string> = {}, cwd?: string) =>
  runCommand(args, {env: {TABLEPAY_HOME: home, TABLEPAY_DATA: '', ...env}, cwd: cwd ?? (await tempDir())})

/**
 * The code of the error a client without a key or URL meets, by what its message found at the default URL:
 * `connection_failed` when nothing answers there, else `missing_api_key` (another test's server may answer).
 */
const keylessCode = (stderr: string) =>
  stderr.includes(':4747: no server answers') ? 'connection_failed' : 'missing_api_key'

/** Pushes a check named `name` to `server`: which server a client found shows in its `checks list`. */
async function mark(server: {url: string}, name: string) {
  const response = await fetch(`${server.url}/v1/checks/external/${name}`, {
    method: 'PUT',
    headers: {authorization: `Bearer ${WRITE_KEY}`, 'content-type': 'application/json'},
    body: JSON.stringify(checkWith([['a', 1, 100]])),
  })
  expect(response.status).toBe(201)
}

/** The server a client run in `cwd` talks to, by the check `mark` pushed to it. */
async function foundFrom(home: string, cwd: string) {
  const {code, stdout, stderr} = await client(home, ['checks', 'list', '--json'], {}, cwd)
  expect(code, stderr).toBe(0)
  return (JSON.parse(stdout).data as {external_id: string}[]).map((c) => c.external_id)
}

describe('how the CLI finds the server', () => {
  it('finds a server started with --data elsewhere through the per-user registry, and its entry goes when it stops', async () => {
    const home = await tempDir()
    const dir = await tempDir()
    const registry = join(home, 'servers')
    await mkdir(registry)
    const stale = `${deadPid()}-4747.json`
    await writeFile(join(registry, stale), JSON.stringify({url: 'http://127.0.0.1:4747', pid: deadPid()}))
    const server = await serve(home, ['--data', join(dir, 'data')])
    // the entry of a server that was killed goes when the next one starts
    const [entry, ...others] = await readdir(registry)
    expect(others).toEqual([])
    expect(entry).not.toBe(stale)
    expect((await stat(join(registry, entry!))).mode & 0o777).toBe(0o600)

    const {code, stdout, stderr} = await client(home, ['locations', 'list'])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(stdout).toContain('loc_main')

    expect(await server.stop()).toBe(0)
    expect(await readdir(registry)).toEqual([])
  })

  it('with TABLEPAY_URL and no key, takes the key of the registered server at that URL', async () => {
    const home = await tempDir()
    const server = await serve(home, ['--memory'])
    const {code, stdout} = await client(home, ['locations', 'list', '--json'], {TABLEPAY_URL: `${server.url}/v1`})
    expect(code).toBe(0)
    expect(JSON.parse(stdout).data[0]).toMatchObject({id: 'loc_main'})
    // localhost, as users type it, is the loopback address the server was registered at
    const typed = server.url.replace('127.0.0.1', 'localhost')
    const byName = await client(home, ['locations', 'list', '--json', '--url', typed])
    expect(byName.code).toBe(0)
    expect(JSON.parse(byName.stdout).data[0]).toMatchObject({id: 'loc_main'})
  })

  it('takes localhost for the IPv6 loopback address a server was registered at, and calls it there', async () => {
    const home = await tempDir()
    const server = await serve(home, ['--memory', '--host', '::1'])
    expect(server.url).toMatch(/^http:\/\/\[::1\]:\d+$/)
    const typed = server.url.replace('[::1]', 'localhost')
    const {code, stdout, stderr} = await client(home, ['locations', 'list', '--json', '--url', typed])
    expect([code, stderr]).toEqual([0, ''])
    expect(JSON.parse(stdout).data[0]).toMatchObject({id: 'loc_main'})
  })

  it('takes an empty TABLEPAY_URL and TABLEPAY_API_KEY, as CI leaves them, for not set', async () => {
    const home = await tempDir()
    await serve(home, ['--memory'])
    const {code, stdout, stderr} = await client(home, ['locations', 'list', '--json'], {
      TABLEPAY_URL: '',
      TABLEPAY_API_KEY: '',
    })
    expect([code, stderr]).toEqual([0, ''])
    expect(JSON.parse(stdout).data[0]).toMatchObject({id: 'loc_main'})
  })

  it('a key TABLEPAY_API_KEY holds that the server refuses is named as from there, with how to use the found one', async () => {
    const home = await tempDir()
    await serve(home, ['--memory'])
    const push = ['checks', 'push', 't12', '-f', join(ROOT, 'fixtures/checks/open.json')]
    // the read key of the dashboard's link, exported: a write is refused for its scope
    const read = await client(home, push, {TABLEPAY_API_KEY: 'tp_test_demo_read'})
    expect(read.code).toBe(1)
    expect(read.stderr).toContain('insufficient_scope')
    expect(read.stderr).toContain(
      'The key came from TABLEPAY_API_KEY: unset it to use the key of the server running here.',
    )
    // a key of another server's data, exported long ago
    const stale = await client(home, push, {TABLEPAY_API_KEY: 'tp_test_gone'})
    expect(stale.code).toBe(1)
    expect(stale.stderr).toContain('The key came from TABLEPAY_API_KEY')
    // the same key on the command line is the user's own choice: nothing to tell
    const given = await client(home, [...push, '--api-key', 'tp_test_demo_read'])
    expect(given.stderr).toContain('insufficient_scope')
    expect(given.stderr).not.toContain('came from')
  })

  it('with two servers started from the current directory, names each with where and when it started, and how to choose', async () => {
    const home = await tempDir()
    const here = await tempDir()
    const [first, second] = await Promise.all([serve(home, ['--memory'], here), serve(home, ['--memory'], here)])
    const {code, stderr} = await client(home, ['locations', 'list'], {}, here)
    expect(code).toBe(1)
    expect(stderr).toContain(
      `2 running tablepay servers were started from ${here} (registered in ${join(home, 'servers')}):`,
    )
    expect(stderr).toMatch(listed(first.url, here, 'with --memory or --database'))
    expect(stderr).toMatch(listed(second.url, here, 'with --memory or --database'))
    expect(stderr).toMatch(
      /Choose one by its URL with --url or TABLEPAY_URL .*, e\.g\. --url http:\/\/127\.0\.0\.1:\d+/,
    )
    // no data dir to point at: TABLEPAY_DATA would pick neither; and both were started here
    expect(stderr).not.toContain('TABLEPAY_DATA')
    expect(stderr).not.toContain('run the command in the directory')
    expect(stderr).toContain('several_servers')
    // the way the hint gives picks that server
    const picked = await client(home, ['locations', 'list', '--url', second.url], {}, here)
    expect(picked.code).toBe(0)
  })

  it('prefers the server started from the current directory, or the nearest directory above it, to the others running', async () => {
    const home = await tempDir()
    const root = await tempDir()
    const [a, b, elsewhere] = await Promise.all([
      madeDir(join(root, 'a')),
      madeDir(join(root, 'b')),
      madeDir(join(root, 'c')),
    ])
    const [onA, onB] = await Promise.all([serve(home, ['--memory'], a), serve(home, ['--memory'], b)])
    await Promise.all([mark(onA, 'on-a'), mark(onB, 'on-b')])

    expect(await foundFrom(home, a)).toEqual(['on-a'])
    expect(await foundFrom(home, await madeDir(join(b, 'deep', 'er')))).toEqual(['on-b'])
    // started from neither: each candidate with where and when it started, and the ways to choose
    const {code, stderr} = await client(home, ['locations', 'list'], {}, elsewhere)
    expect(code).toBe(1)
    expect(stderr).toContain(`2 tablepay servers are running, none started from ${elsewhere} or above`)
    expect(stderr).toMatch(listed(onA.url, a, 'with --memory or --database'))
    expect(stderr).toMatch(listed(onB.url, b, 'with --memory or --database'))
    expect(stderr).toContain('Choose one by its URL with --url or TABLEPAY_URL')
    expect(stderr).toContain('or run the command in the directory a server was started from, or below it.')
    expect(stderr).toContain('several_servers')
  })

  it('with two servers started from one other directory, says none was started from here', async () => {
    const home = await tempDir()
    const [there, elsewhere] = await Promise.all([tempDir(), tempDir()])
    await Promise.all([serve(home, ['--memory'], there), serve(home, ['--memory'], there)])
    const {code, stderr} = await client(home, ['locations', 'list'], {}, elsewhere)
    expect(code).toBe(1)
    expect(stderr).toContain(`2 tablepay servers are running, none started from ${elsewhere} or above`)
    expect(stderr).toContain('or run the command in the directory a server was started from, or below it.')
  })

  it('takes the .tablepay data dir of a directory above the current one before the server started from it', async () => {
    const home = await tempDir()
    const project = await tempDir()
    const below = await madeDir(join(project, 'src', 'deep'))
    const [onData, startedHere] = await Promise.all([
      serve(home, ['--data', join(project, '.tablepay')], await tempDir()),
      serve(home, ['--memory'], below),
    ])
    await Promise.all([mark(onData, 'on-data'), mark(startedHere, 'started-here')])
    expect(await foundFrom(home, below)).toEqual(['on-data'])
  })

  it('with two servers running, one of them on a data dir, names that dir as another way to pick it', async () => {
    const home = await tempDir()
    const data = join(await tempDir(), 'data')
    const [memory, onDisk] = await Promise.all([serve(home, ['--memory']), serve(home, ['--data', data])])
    const {code, stderr} = await client(home, ['locations', 'list'])
    expect(code).toBe(1)
    expect(stderr).toMatch(listed(memory.url, ROOT, 'with --memory or --database'))
    expect(stderr).toMatch(listed(onDisk.url, ROOT, `data dir ${data}`))
    expect(stderr).toContain(`or one with a data dir by the dir, e.g. TABLEPAY_DATA=${data}`)
    // the way the hint gives picks that server
    const picked = await client(home, ['locations', 'list', '--json'], {TABLEPAY_DATA: data})
    expect(picked.code).toBe(0)
  })

  it('without a key anywhere, lists each place it looked, skipping files of servers that are gone', async () => {
    const home = await tempDir()
    const data = await tempDir()
    const stale = {url: 'http://127.0.0.1:9', pid: deadPid(), api_key: 'tp_test_stale'}
    await mkdir(join(data, '.tablepay'))
    await writeFile(join(data, '.tablepay', 'server.json'), JSON.stringify(stale))
    const {code, stderr} = await client(home, ['locations', 'list'], {}, data)
    expect(code).toBe(1)
    // another test's server may answer at the default URL
    expect(stderr).toMatch(
      /No tablepay server found, and no API key\. Tried:[^]*4747: no server answers|No API key\. Tried:[^]*4747: a server answers/,
    )
    expect(stderr).toContain('--api-key and TABLEPAY_API_KEY: not set')
    expect(stderr).toContain(`${join(data, '.tablepay', 'server.json')}: its server (pid ${stale.pid}) is not running`)
    expect(stderr).toContain(`running servers registered in ${join(home, 'servers')}: none registered`)
    expect(stderr).toMatch(
      /http:\/\/127\.0\.0\.1:4747: (no server answers|a server answers, but its keys are not known here)/,
    )
    expect(stderr).toContain(`Code: ${keylessCode(stderr)}`)
  })

  it('nothing answering at the URL given is connection_failed, the very error a key meets there', async () => {
    const home = await tempDir()
    const url = `http://127.0.0.1:${await freePort()}`
    const keyed = await client(home, ['checks', 'list', '--url', url, '-k', 'tp_test_x', '--json'])
    for (const keyless of [
      await client(home, ['checks', 'list', '--url', url, '--json']),
      await client(home, ['checks', 'list', '--json'], {TABLEPAY_URL: url}),
    ]) {
      expect(keyless.code).toBe(1)
      expect(keyless.stdout).toBe(keyed.stdout)
    }
    expect(JSON.parse(keyed.stdout).error).toEqual({
      code: 'connection_failed',
      message: `No tablepay server at ${url}. Start one with \`tablepay serve\`, or give the client another URL (--url).`,
    })
  })

  it('TABLEPAY_DATA names the server: when none runs there, another that runs is not used, and the error says so', async () => {
    const home = await tempDir()
    const data = await madeDir(join(await tempDir(), "lunch's data"))
    const other = await serve(home, ['--memory'])
    const {code, stderr} = await client(home, ['locations', 'list'], {TABLEPAY_DATA: data})
    expect(code).toBe(1)
    expect(stderr).toContain(`${join(data, 'server.json')}: not found`)
    expect(stderr).not.toContain(other.url)
    // the dir as one shell word, to be run as printed
    const word = `'${data.replace("'", `'\\''`)}'`
    expect(stderr).toContain(`or start \`tablepay serve --data ${word}\`, or unset TABLEPAY_DATA.`)
    expect(stderr).toContain(`Code: ${keylessCode(stderr)}`)
    // a URL names the server instead: the registry gives its key
    const byUrl = await client(home, ['locations', 'list', '--json', '--url', other.url], {TABLEPAY_DATA: data})
    expect(byUrl.code).toBe(0)
    expect(JSON.parse(byUrl.stdout).data[0]).toMatchObject({id: 'loc_main'})
  })

  it('a server address without http:// is named as such, not as a server that cannot be reached', async () => {
    const home = await tempDir()
    const flag = await client(home, ['locations', 'list', '--url', '127.0.0.1:4747', '-k', 'tp_test_x'])
    expect(flag.code).toBe(2)
    expect(flag.stderr).toContain('--url: ')
    expect(flag.stderr).toContain(
      '"127.0.0.1:4747" is not an http(s) URL: give the tablepay server\'s, e.g. http://127.0.0.1:4747',
    )
    const env = await client(home, ['locations', 'list', '--json'], {TABLEPAY_URL: '127.0.0.1:4747/v1'})
    expect(env.code).toBe(1)
    expect(JSON.parse(env.stdout).error).toEqual({
      code: 'invalid_url',
      message:
        'TABLEPAY_URL "127.0.0.1:4747/v1" is not an http(s) URL: give the tablepay server\'s, e.g. http://127.0.0.1:4747.',
    })
    // a \r a file written on Windows left: the parser would drop it, and keep the /v1 on the base
    const stray = await client(home, ['locations', 'list', '--json'], {TABLEPAY_URL: 'http://127.0.0.1:4747/v1\r'})
    expect(stray.code).toBe(1)
    expect(JSON.parse(stray.stdout).error).toMatchObject({
      code: 'invalid_url',
      message: expect.stringContaining('holds "\\r" at character 25, which a URL never does'),
    })
  })

  it('a URL with credentials, an empty key or a key with a stray character is a wrong setting, not an unreachable server', async () => {
    const home = await tempDir()
    const withUser = await client(home, ['locations', 'list', '--url', 'http://u:p@127.0.0.1:4747', '-k', 'tp_test_x'])
    expect(withUser.code).toBe(2)
    expect(withUser.stderr).toContain('"http://u:p@127.0.0.1:4747" holds a user name or password')
    // `-k "$KEY"` with KEY unset: not a silent fall back to another key
    const empty = await client(home, ['locations', 'list', '-k', ''])
    expect(empty.code).toBe(2)
    expect(empty.stderr).toContain('The key given is empty')
    const env = await client(home, ['locations', 'list', '--json'], {TABLEPAY_API_KEY: 'tp_test_x\r'})
    expect(env.code).toBe(1)
    expect(JSON.parse(env.stdout).error).toMatchObject({
      code: 'invalid_api_key',
      message: expect.stringContaining('"\\r" at character 10'),
    })
  })

  it('a registered server that is alive but does not answer is named so, not as not running', async () => {
    const home = await tempDir()
    // a process that runs (this one) at a URL where nothing answers in time
    const silent = createServer(() => undefined)
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    cleanup.push(async () => {
      silent.closeAllConnections()
      await new Promise((resolve) => silent.close(resolve))
    })
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`
    await mkdir(join(home, 'servers'), {recursive: true})
    const entry = {url, pid: process.pid, api_key: 'tp_test_silent', data_dir: null}
    await writeFile(join(home, 'servers', `${process.pid}-1.json`), JSON.stringify(entry))
    const {code, stderr} = await client(home, ['locations', 'list'])
    expect(code).toBe(1)
    expect(stderr).toContain(
      `running servers registered in ${join(home, 'servers')}: none usable (its server (pid ${process.pid}) does not answer at ${url})`,
    )
  })
})
