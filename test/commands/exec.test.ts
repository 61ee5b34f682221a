import {spawn} from 'node:child_process'
import {existsSync} from 'node:fs'
import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {createServer} from 'node:http'
import {type AddressInfo, connect} from 'node:net'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {describe, expect, it, onTestFinished} from 'vitest'
import {isAlive} from '../../src/shared/process-alive.js'
import {READ_KEY, ROOT, runCli, runCommand, signalledWhileStarting, spawnRunning, WRITE_KEY} from '../helpers/cli.js'

const SECRET = 'whsec_exec_test_secret_0123456789'

/** A temp dir with seed.json: fixtures/seed.json with a webhook endpoint whose secret is known. */
async function seedDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tablepay-exec-'))
  onTestFinished(() => rm(dir, {recursive: true, force: true}))
  const seed = JSON.parse(await readFile(join(ROOT, 'fixtures', 'seed.json'), 'utf8'))
  seed.accounts[0].webhook_endpoints = [
    {url: 'http://127.0.0.1:9/webhooks', event_types: ['check.created'], secret: SECRET},
  ]
  await writeFile(join(dir, 'seed.json'), JSON.stringify(seed))
  return dir
}

/** Runs `script` with sh in `cwd`, as a CI step runs its lines; servers register in `cwd`, not the user's home. */
function runShell(script: string, cwd: string): Promise<{code: number | null; stdout: string; stderr: string}> {
  const child = spawn('sh', ['-c', script], {cwd, env: {...process.env, NO_COLOR: '1', TABLEPAY_HOME: cwd}})
  const output = {stdout: '', stderr: ''}
  child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk))
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk))
  return new Promise((resolve) => child.on('close', (code) => resolve({code, ...output})))
}

/** True once nothing accepts connections on the port of `url`. */
function refused(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(Number(new URL(url).port), '127.0.0.1')
    socket.once('connect', () => resolve(socket.destroy() && false))
    socket.once('error', () => resolve(true))
  })
}

/** The URL exec's notice on stderr names. */
const noticedUrl = (stderr: string) => /listening on (\S+)/.exec(stderr)![1]!

describe('exec -- COMMAND', () => {
  it("runs the README's CI recipe: COMMAND gets the URL, keys and webhook secret, keeps its stdout, and sets the exit code", async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8')
    const recipe = /```sh\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf('## Use in CI')))![1]!
    expect(recipe).toContain('tablepay exec')
    // `npm test` asks the server for the locations, prints what it was given, and exits 3
    const dir = await seedDir()
    await writeFile(
      join(dir, 'test.cjs'),
      `const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('TABLEPAY_')))
      fetch(env.TABLEPAY_URL + '/locations', {headers: {authorization: 'Bearer ' + env.TABLEPAY_API_KEY}}).then((res) => {
        const servers = env.TABLEPAY_HOME + '/servers'
        const registered = require('node:fs').existsSync(servers) ? require('node:fs').readdirSync(servers) : []
        console.log(JSON.stringify({pid: process.pid, status: res.status, env, registered}))
        process.exitCode = 3
      })`,
    )
    const script = recipe
      .replaceAll('npx tablepay', `node ${join(ROOT, 'bin', 'run.js')}`)
      .replace(/--seed \S+/, `--seed ${join(dir, 'seed.json')}`)
      .replace('npm test', 'node test.cjs')
    const {code, stdout, stderr} = await runShell(script, dir)

    expect(code).toBe(3)
    const seen = JSON.parse(stdout) as {pid: number; status: number; env: Record<string, string>; registered: string[]}
    expect(seen.status).toBe(200)
    // a throwaway server: clients elsewhere never find it in the per-user registry
    expect(seen.registered).toEqual([])
    const url = seen.env.TABLEPAY_URL!
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/)
    expect(seen.env).toMatchObject({
      TABLEPAY_API_KEY: WRITE_KEY,
      TABLEPAY_READ_KEY: READ_KEY,
      TABLEPAY_DASHBOARD_URL: `${url.replace(/\/v1$/, '')}/#key=${READ_KEY}`,
      TABLEPAY_WEBHOOK_SECRET: SECRET,
    })
    expect(stderr).toContain(`listening on ${url}`)
    expect(isAlive(seen.pid)).toBe(false)
    expect(await refused(url)).toBe(true)
  })

  it('exits 0 and 1 as COMMAND does, without a webhook secret when the seed gives none, its --log on stderr', async () => {
    const secretless = 'process.exit(process.env.TABLEPAY_WEBHOOK_SECRET === undefined ? 0 : 9)'
    const ok = await runCommand(['exec', '--seed', 'fixtures/seed.json', '--', 'node', '-e', secretless])
    expect(ok.code).toBe(0)
    const request = "fetch(process.env.TABLEPAY_URL + '/locations').then(() => process.exit(1))"
    const failed = await runCommand(['exec', '--log', '--', 'node', '-e', request])
    expect(failed.code).toBe(1)
    expect(failed.stderr).toContain('GET /v1/locations 401')
    expect(failed.stdout).toBe('')
    expect(await refused(noticedUrl(failed.stderr))).toBe(true)
  })

  it("unsets the variables this server has no value for, whatever the caller's were: they were another server's", async () => {
    const dir = await seedDir()
    const seed = JSON.parse(await readFile(join(ROOT, 'fixtures', 'seed.json'), 'utf8'))
    seed.accounts[0].api_keys = seed.accounts[0].api_keys.filter((key: {scopes: string[]}) =>
      key.scopes.includes('write'),
    )
    await writeFile(join(dir, 'write-only.json'), JSON.stringify(seed))
    const env = {
      TABLEPAY_READ_KEY: 'tp_test_another_server',
      TABLEPAY_WEBHOOK_SECRET: 'whsec_another_server_0123456789',
    }
    // COMMAND's stdout is the test's own: it tells by its exit code
    const show =
      'process.exit((process.env.TABLEPAY_READ_KEY === undefined ? 0 : 3) + (process.env.TABLEPAY_WEBHOOK_SECRET === undefined ? 0 : 4))'
    const {code} = await runCommand(['exec', '--seed', join(dir, 'write-only.json'), '--', 'node', '-e', show], {env})
    expect(code).toBe(0)
  })

  it('exits 128 + the signal number when a signal kills COMMAND, and leaves nothing behind', async () => {
    const script = `console.log(process.pid + ' ' + process.env.TABLEPAY_URL); process.kill(process.pid, 'SIGKILL')`
    const {code, stdout} = await runCli(['exec', '--', 'node', '-e', script])
    expect(code).toBe(128 + 9)
    const [pid, url] = stdout.trim().split(' ')
    expect(isAlive(Number(pid))).toBe(false)
    expect(await refused(url!)).toBe(true)
  })

  // SIGHUP: a supervisor's, or a closed terminal's when exec is not in its foreground
  it.each(['SIGTERM', 'SIGHUP'] as const)(
    'passes %s to COMMAND, keeps serving until COMMAND ends, and exits as it did',
    async (signal) => {
      // COMMAND asks the server for its health once told to stop, then exits 7
      const script = `
      process.on('${signal}', async () => {
        console.log('stopping ' + (await fetch(process.env.TABLEPAY_URL + '/health')).status)
        process.exit(7)
      })
      console.log('running ' + process.pid + ' ' + process.env.TABLEPAY_URL)
      setInterval(() => {}, 1000)`
      const exec = spawnRunning(['exec', '--', 'node', '-e', script])
      const [, pid, url] = (await exec.waitForOutput('\n')).trim().split(' ')
      // an exec that did not wait for COMMAND leaves it running, holding the output open
      onTestFinished(() => void (isAlive(Number(pid)) && process.kill(Number(pid), 'SIGKILL')))

      expect(await exec.kill(signal)).toBe(7)
      expect(exec.stdout()).toContain('stopping 200')
      expect(isAlive(Number(pid))).toBe(false)
      expect(await refused(url!)).toBe(true)
    },
    15_000,
  )

  // Ctrl+C reaches every process of the terminal's foreground group, COMMAND with exec: a SIGINT passed on
  // as well would be a second Ctrl+C, after which tablepay's own commands, vitest or npm quit without cleaning up
  for (const stdin of ['the terminal', '/dev/null'])
    it(`leaves Ctrl+C in a terminal to reach COMMAND once, with stdin ${stdin}`, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'tablepay-exec-'))
      onTestFinished(() => rm(dir, {recursive: true, force: true}))
      // COMMAND counts its SIGINTs, and says how many when exec passes SIGTERM on
      const command = join(dir, 'count-sigints.js')
      await writeFile(
        command,
        `let sigints = 0
        process.on('SIGINT', () => console.log('sigint ' + ++sigints))
        process.on('SIGTERM', () => (console.log('sigints: ' + sigints), process.exit(0)))
        console.log('ready ' + process.ppid)
        setInterval(() => {}, 1000)`,
      )
      const redirect = stdin === '/dev/null' ? ' < /dev/null' : ''
      const line = `exec '${process.execPath}' '${join(ROOT, 'bin', 'run.js')}' exec -- '${process.execPath}' '${command}'${redirect}`
      // script(1) runs it on a terminal of its own, in the foreground; what is written to script's stdin is typed
      const terminal = spawn('script', ['-qfec', line, '/dev/null'], {env: {...process.env, TABLEPAY_HOME: dir}})
      let output = ''
      terminal.stdout.on('data', (chunk: Buffer) => (output += chunk))
      const printed = (pattern: RegExp) =>
        new Promise<RegExpMatchArray>((resolve) => {
          const check = () => output.match(pattern) && resolve(output.match(pattern)!)
          terminal.stdout.on('data', check)
          check()
        })
      const closed = new Promise((resolve) => terminal.on('close', resolve))
      onTestFinished(() => void terminal.kill('SIGKILL'))

      const [, execPid] = await printed(/ready (\d+)/)
      terminal.stdin.write('\x03')
      await printed(/sigint 1/)
      // a SIGINT exec passed on reaches COMMAND before the SIGTERM exec passes on after it
      process.kill(Number(execPid), 'SIGTERM')
      expect(await closed).toBe(0)
      expect(output).toContain('sigints: 1')
    })

  it('fails loudly, without running COMMAND, when another program holds --port', async () => {
    const held = createServer()
    await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve))
    onTestFinished(() => new Promise<void>((resolve) => held.close(() => resolve())))
    const {port} = held.address() as AddressInfo
    const dir = await seedDir()
    const {code, stderr} = await runCommand(['exec', '--port', String(port), '--', 'touch', join(dir, 'ran')])
    expect(code).toBe(1)
    expect(stderr).toContain(`Cannot listen on port ${port} on 127.0.0.1: it is in use`)
    expect(existsSync(join(dir, 'ran'))).toBe(false)
  })

  it('names a COMMAND it cannot find, exits 127, and stops the server', async () => {
    const {code, stderr} = await runCommand(['exec', '--', 'tablepay-no-such-command', '--flag'])
    expect(code).toBe(127)
    expect(stderr).toContain('Cannot run "tablepay-no-such-command": not found')
    expect(await refused(noticedUrl(stderr))).toBe(true)
  })

  it('exits 126 for a COMMAND that is there but cannot be run, saying to make it executable', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tablepay-exec-'))
    onTestFinished(() => rm(dir, {recursive: true, force: true}))
    const script = join(dir, 'not-executable.sh')
    await writeFile(script, '#!/bin/sh\nexit 0\n', {mode: 0o644})
    const {code, stderr} = await runCommand(['exec', '--', script])
    expect(code).toBe(126)
    expect(stderr).toContain(`Cannot run "${script}"`)
    expect(stderr).toContain('chmod +x')
    expect(await refused(noticedUrl(stderr))).toBe(true)
  })

  it('refuses --data or --memory beside --database as a wrong command line (exit 2), starting nothing', async () => {
    const database = 'postgres://nobody@127.0.0.1:9/none'
    const run = ['--', 'node', '-e', '0']
    for (const [args, env, says] of [
      [
        ['exec', '--data', 'here', '--database', database, ...run],
        {},
        '--data cannot also be provided when using --database',
      ],
      [
        ['exec', '--memory', '--database', database, ...run],
        {},
        '--memory cannot also be provided when using --database',
      ],
      // serve's database set in the environment, where the user may not see it: named, with the way out
      [
        ['serve', '--memory', '--port', '0'],
        {TABLEPAY_DATABASE_URL: database},
        '--memory cannot be used while TABLEPAY_DATABASE_URL is set: the records live in that database. Unset it, or leave out --memory.',
      ],
    ] as const) {
      const {code, stderr} = await runCommand([...args], {env})
      expect([code, stderr.replaceAll(/\s*\n ›\s*/g, ' ')], args.join(' ')).toEqual([2, expect.stringContaining(says)])
      expect(stderr).not.toContain('listening')
    }
  })

  it('refuses --fsync or --repair without a data dir as a wrong command line (exit 2), on the lean path too', async () => {
    const database = 'postgres://nobody@127.0.0.1:9/none'
    for (const [args, says] of [
      [['exec', '--repair', '--', 'node', '-e', '0'], '--repair is for a data dir, and everything is kept in memory.'],
      [['serve', '--memory', '--fsync', '--port', '0'], '--fsync is for a data dir, and everything is kept in memory.'],
      [
        ['serve', '--database', database, '--fsync'],
        '--fsync is for a data dir, and the records live in the database.',
      ],
    ] as const) {
      const {code, stdout, stderr} = await runCli([...args])
      expect([code, stdout], args.join(' ')).toEqual([2, ''])
      expect(stderr).toContain(says)
      expect(stderr).toContain(`Give --data DIR, or leave out --${says.slice(2, says.indexOf(' '))}.`)
      expect(stderr).not.toContain('listening')
    }
  })

  it('a SIGTERM while the server starts stops it once started: COMMAND never runs, exit 143', async () => {
    const ran = join(await mkdtemp(join(tmpdir(), 'tablepay-exec-')), 'ran')
    onTestFinished(() => rm(dirname(ran), {recursive: true, force: true}))
    const script = `require('node:fs').writeFileSync(${JSON.stringify(ran)}, '')`
    const exec = await signalledWhileStarting((seed) => ['exec', '--seed', seed, '--', 'node', '-e', script])
    expect(await exec.exited).toBe(143)
    expect(existsSync(ran)).toBe(false)
    expect(exec.stderr()).not.toContain('listening')
  })

  it('refuses a command line without -- COMMAND as a wrong command line (exit 2), starting nothing', async () => {
    // after a flag, without one (oclif reads `exec npm test` as a command of that name), and an empty name
    for (const [args, says] of [
      [['--seed', 'fixtures/seed.json', 'npm', 'test'], 'Give the command to run after --'],
      [['npm', 'test'], '"tablepay exec" runs what comes after --: tablepay exec -- npm test'],
      // the command's own flags, and a word with a space, are in the line to run instead
      [['npm', 'run', '--silent', 'my test'], "tablepay exec -- npm run --silent 'my test'"],
      [['--', ''], 'Give the command to run after --'],
    ] as const) {
      const {code, stderr} = await runCommand(['exec', ...args])
      expect([code, stderr.replaceAll(/\s*\n ›\s*/g, ' ')], args.join(' ')).toEqual([2, expect.stringContaining(says)])
      expect(stderr).not.toContain('listening')
    }
  })
})
