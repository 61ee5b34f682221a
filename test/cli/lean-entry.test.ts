import {readFileSync} from 'node:fs'
import {mkdtemp, readdir, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {afterAll, beforeAll, describe, expect, it, onTestFinished} from 'vitest'
import {signPayload} from '../../src/index.js'
import {type CliOptions, type CliProcess, type CliResult, ROOT, runCli, spawnRunning} from '../helpers/cli.js'

const SECRET = 'whsec_test_lean_5f2b9c0e'
const PAYLOAD = 'fixtures/checks/open.json'
const BODY = readFileSync(join(ROOT, PAYLOAD))
const T = 1_700_000_000
// signed long ago: the cases pass --tolerance to accept it, so no case depends on the clock
const OLD = signPayload(BODY, SECRET, T)
const TOLERANCE = String(Math.floor(Date.now() / 1000) - T + 3600)

// ages ("12 s ago", "3600 s old") move with the clock between two runs; everything else must match byte for byte
const steady = ({code, stdout, stderr}: CliResult) => {
  const age = (text: string) => text.replaceAll(/\b\d+ s (ago|old)\b/g, 'N s $1')
  return {code, stdout: age(stdout), stderr: age(stderr)}
}

type Case = [name: string, args: string[], options?: CliOptions]

/** Cases the lean path answers itself, without giving way to oclif: else the comparison would be oclif's with itself. */
const LEAN = [
  'verify, valid',
  'verify, valid, --json, long flags with =',
  'verify, valid, tolerance in days',
  'verify, valid, secret from the environment, body on stdin',
  'verify, too old',
  'verify, wrong secret, --json',
  'sign, fixed time',
  'sign, no secret',
  'serve, --data under a regular file, --json',
]

const cases: Case[] = [
  ['verify, valid', ['verify', '-s', SECRET, '-H', OLD, '-p', PAYLOAD, '--tolerance', TOLERANCE]],
  [
    'verify, valid, --json, long flags with =',
    ['verify', `--secret=${SECRET}`, `--header=${OLD}`, `--payload=${PAYLOAD}`, `--tolerance=${TOLERANCE}`, '--json'],
  ],
  [
    'verify, valid, secret from the environment, body on stdin',
    ['verify', '-H', OLD, '-p', '-', '--tolerance', TOLERANCE],
    {env: {TABLEPAY_WEBHOOK_SECRET: SECRET}, input: BODY.toString()},
  ],
  [
    'verify, valid, tolerance in days',
    ['verify', '-s', SECRET, '-H', OLD, '-p', PAYLOAD, '--tolerance', `${Math.ceil(Number(TOLERANCE) / 86_400)}d`],
  ],
  ['verify, too old', ['verify', '-s', SECRET, '-H', OLD, '-p', PAYLOAD]],
  ['verify, wrong secret', ['verify', '-s', 'whsec_other', '-H', OLD, '-p', PAYLOAD, '--tolerance', TOLERANCE]],
  ['verify, wrong secret, --json', ['verify', '-s', 'whsec_other', '-H', OLD, '-p', PAYLOAD, '--json']],
  ['verify, malformed header', ['verify', '-s', SECRET, '-H', 'sha256=abc', '-p', PAYLOAD]],
  ['verify, no secret', ['verify', '-H', OLD, '-p', PAYLOAD]],
  ['verify, no secret, --json', ['verify', '-H', OLD, '-p', PAYLOAD, '--json']],
  ['verify, unreadable payload file', ['verify', '-s', SECRET, '-H', OLD, '-p', 'fixtures/checks/missing.json']],
  ['verify --help', ['verify', '--help']],
  ['verify -h', ['verify', '-h']],
  ['verify, unknown flag', ['verify', '--nope']],
  ['verify, negative tolerance', ['verify', '-s', SECRET, '-H', OLD, '-p', PAYLOAD, '--tolerance', '-1']],
  ['verify, tolerance not a number', ['verify', '-s', SECRET, '-H', OLD, '-p', PAYLOAD, '--tolerance', 'soon']],
  ['verify, tolerance not whole seconds', ['verify', '-s', SECRET, '-H', OLD, '-p', PAYLOAD, '--tolerance', '500ms']],
  ['verify, flag without its value', ['verify', '-s', SECRET, '-p', PAYLOAD, '-H']],
  ['verify, an argument', ['verify', 'body.json']],
  ['sign, fixed time', ['sign', '-s', SECRET, '-p', PAYLOAD, '-t', String(T)]],
  ['sign, fixed time, --json', ['sign', '-s', SECRET, '-p', PAYLOAD, '--timestamp', String(T), '--json']],
  ['sign, no secret', ['sign', '-p', PAYLOAD]],
  ['sign --help', ['sign', '--help']],
  ['sign, --forward-to not a URL', ['sign', '-s', SECRET, '-p', PAYLOAD, '--forward-to', 'nowhere']],
  ['sign, --post (the old name of --forward-to) not a URL', ['sign', '-s', SECRET, '-p', PAYLOAD, '--post', 'nowhere']],
  ['serve, --data under a regular file', ['serve', '--port', '0', '--data', 'package.json/data']],
  ['serve, --data under a regular file, --json', ['serve', '--port', '0', '--data', 'package.json/data', '--json']],
  ['serve, a seed file that is not JSON', ['serve', '--port', '0', '--memory', '--seed', 'README.md']],
  ['serve, a seed file that is nowhere', ['serve', '--port', '0', '--memory', '--seed', 'fixtures/nowhere.json']],
  ['serve, a port out of range', ['serve', '--port', '65536', '--memory']],
  // a data dir it cannot make: taken, the empty --host would fail on that instead, not start a server
  ['serve, an empty --host', ['serve', '--port', '0', '--data', 'package.json/data', '--host', '']],
  ['serve, a flag the lean path does not take, wrong', ['serve', '--port', '0', '--memory', '--cors', 'nowhere']],
  ['serve --help', ['serve', '--help']],
  ['serve, a value after = that is a flag', ['serve', '--port', '0', '--memory', '--data=--json']],
  // a flag the lean path does not take, set in the environment: oclif refuses the URL, as it would on the command line
  [
    'serve, a database URL from the environment',
    ['serve', '--port', '0'],
    {env: {TABLEPAY_DATABASE_URL: 'mysql://db/x'}},
  ],
]

// both paths in this process, as bin/run.js takes them (the lean path, then oclif if it gives way): a spawn
// apiece cost the file 4 s of CPU. What only the binary shows (its start, what it loads, signals) is below.
describe('bin/run.js lean path for verify, sign and serve', () => {
  it.each(cases)('%s: the same output and exit code as oclif', async (_name, args, options = {}) => {
    const {path, ...lean} = await runCli(args, {...options, lean: true})
    const {path: _, ...oclif} = await runCli(args, {...options, oclif: true})
    expect(steady(lean)).toEqual(steady(oclif))
    if (LEAN.includes(_name)) expect(path).toBe('lean')
  })

  it.each([[[]], [['--json']]])(
    'serve %j: the same ready output, and the same stop on SIGTERM, as oclif',
    async (json) => {
      const args = ['serve', '--port', '0', '--memory', '--seed', 'fixtures/seed.json', ...json]
      const [lean, oclif] = [spawnRunning(args), spawnRunning(args, {}, {oclif: true})]
      await Promise.all([lean.waitForOutput('\n'), oclif.waitForOutput('\n')])
      const codes = await Promise.all([lean.stop(), oclif.stop()])
      // the ports differ; everything else must match byte for byte
      const steadyServe = (run: CliProcess, code: number | null) => ({
        code,
        stdout: run.stdout().replaceAll(/127\.0\.0\.1:\d+/g, '127.0.0.1:PORT'),
        stderr: run.stderr(),
      })
      expect(steadyServe(lean, codes[0])).toEqual(steadyServe(oclif, codes[1]))
      expect(codes[0]).toBe(0)
    },
  )

  it.each([
    ['the lean path', false],
    ['oclif', true],
  ])(
    'serve --log keeps serving when the reader of its output goes away (`| head -1`), through %s',
    async (_, oclif) => {
      const args = ['serve', '--port', '0', '--memory', '--seed', 'fixtures/seed.json', '--log', '--json']
      const serve = spawnRunning(args, {}, {oclif})
      const {url} = JSON.parse(await serve.waitForOutput('\n')) as {url: string}
      serve.closeStdout()
      // each request's access line now meets a closed pipe
      const answers = []
      for (let i = 0; i < 5; i++) answers.push((await fetch(`${url}/health`)).status)
      expect(answers).toEqual([200, 200, 200, 200, 200])
      expect(await serve.stop()).toBe(0)
    },
  )

  it.each([
    ['the lean path', []],
    // a flag the lean path does not take: bin/run.js hands the command line to oclif
    ['oclif', ['--max-events', '1000']],
  ])(
    'serve stops cleanly on SIGTERM when nothing reads its stderr any more (`2>&1 | head -1`), through %s',
    async (_, more) => {
      const dir = await mkdtemp(join(tmpdir(), 'tablepay-serve-'))
      onTestFinished(() => rm(dir, {recursive: true, force: true}))
      const serve = spawnRunning(['serve', '--port', '0', '--data', dir, '--json', ...more])
      await serve.waitForOutput('\n')
      expect(await readdir(dir)).toContain('server.json')
      serve.closeStderr()
      // its "Stopping tablepay…" meets a closed pipe: the stop goes on, and lets go of the data dir
      expect(await serve.stop()).toBe(0)
      expect(await readdir(dir)).not.toContain('server.json')
    },
  )
})

describe.concurrent('what bin/run.js loads', () => {
  let dir: string
  let hooks: string

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tablepay-lean-'))
    // a resolve hook that writes down every module the process imports, and every one it requires
    // (bin/run.js and its bundled lean entry are CommonJS)
    const hook = `import {appendFileSync} from 'node:fs'
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context)
  appendFileSync(process.env.MODULE_LOG, result.url + '\\n')
  return result
}`
    const requires = `import {appendFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {pathToFileURL} from 'node:url'
const Module = createRequire(import.meta.url)('node:module')
const load = Module._load
Module._load = function (request, parent, isMain) {
  const file = Module._resolveFilename(request, parent, isMain)
  const url = file.includes('/') ? pathToFileURL(file).href : 'node:' + file.replace(/^node:/, '')
  appendFileSync(process.env.MODULE_LOG, url + '\\n')
  return load.apply(this, arguments)
}`
    hooks = join(dir, 'register.mjs')
    await writeFile(
      hooks,
      `import {register} from 'node:module'\n${requires}\nregister(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)})\n`,
    )
  })

  afterAll(() => rm(dir, {recursive: true, force: true}))

  async function loaded(
    name: string,
    args: string[],
    env: Record<string, string> = {},
  ): Promise<{code: number | null; modules: string[]}> {
    const log = join(dir, `${name}.log`)
    const {code} = await runCli(args, {
      env: {...env, MODULE_LOG: log},
      nodeArgs: ['--import', pathToFileURL(hooks).href],
    })
    return {code, modules: (await readFile(log, 'utf8')).split('\n').filter(Boolean)}
  }

  const packagesIn = (modules: string[]) =>
    [...new Set(modules.flatMap((url) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1] ?? []))].sort()

  it('a valid verify loads no package at all (no oclif, no h3), and of node only fs, path, crypto and util', async () => {
    const {code, modules} = await loaded('verify-valid', [
      'verify',
      '-s',
      SECRET,
      '-H',
      OLD,
      '-p',
      PAYLOAD,
      '--tolerance',
      TOLERANCE,
    ])
    expect(code).toBe(0)
    expect(packagesIn(modules)).toEqual([])
    // the lean entry is one bundled file: what went into it is listed beside it at build
    const bundled: string[] = JSON.parse(await readFile(join(ROOT, 'dist/cli/lean-entry.inputs.json'), 'utf8'))
    expect(bundled).toContain('dist/webhooks/signature.js')
    // of the domain, only the parser of durations (--tolerance 5m) and how its errors quote a value, which import nothing
    const heavy = (file: string) => /^dist\/(server|store|domain|client\/client)/.test(file)
    const light = new Set(['dist/domain/duration.js', 'dist/domain/quoted-input.js'])
    expect(bundled.filter((file) => heavy(file) && !light.has(file))).toEqual([])
    // every module counts in a start this short (docs/benchmarks.md, "The lean path"); node:util, whose parseArgs
    // reads the flags, is one Node loaded before any of ours
    const builtins = [...new Set(modules.filter((url) => url.startsWith('node:')))].sort()
    expect(builtins).toEqual(['node:crypto', 'node:fs', 'node:path', 'node:util'])
  })

  it('a valid sign loads no package at all', async () => {
    const {code, modules} = await loaded('sign-valid', ['sign', '-s', SECRET, '-p', PAYLOAD])
    expect(code).toBe(0)
    expect(packagesIn(modules)).toEqual([])
  })

  it('a refused signature loads oclif to print the error, but not h3', async () => {
    const {code, modules} = await loaded('verify-refused', ['verify', '-s', 'whsec_other', '-H', OLD, '-p', PAYLOAD])
    expect(code).toBe(1)
    expect(packagesIn(modules)).toContain('@oclif/core')
    expect(packagesIn(modules)).not.toContain('h3')
  })

  it('serve loads no package, and of its own files only its bundle: no oclif, no module per source file', async () => {
    const log = join(dir, 'serve.log')
    const args = ['serve', '--port', '0', '--memory', '--seed', 'fixtures/seed.json', '--json']
    const serve = spawnRunning(args, {MODULE_LOG: log}, {nodeArgs: ['--import', pathToFileURL(hooks).href]})
    await serve.waitForOutput('\n')
    expect(await serve.stop()).toBe(0)
    const modules = (await readFile(log, 'utf8')).split('\n').filter(Boolean)
    expect(packagesIn(modules)).toEqual([])
    const root = pathToFileURL(join(ROOT, '/')).href
    // the bundle's chunks (scripts/serve-bundle.js) carry a hash in their names
    const files = modules.flatMap((url) =>
      url.startsWith(root) ? url.slice(root.length).replace(/-\w+\.js$/, '-HASH.js') : [],
    )
    expect([...new Set(files)].sort()).toEqual([
      'bin/run.js',
      'dist/chunks/chunk-HASH.js',
      'dist/cli/lean-entry.cjs',
      'dist/serve/run.js',
    ])
  })

  it('verify --help goes through oclif, still without h3, the completion plugin, or TypeScript under NODE_ENV=test', async () => {
    // oclif looks for a command's TypeScript source when NODE_ENV is test or development, as jest sets it
    const {code, modules} = await loaded('verify-help', ['verify', '--help'], {NODE_ENV: 'test'})
    expect(code).toBe(0)
    expect(packagesIn(modules)).toContain('@oclif/core')
    expect(packagesIn(modules)).not.toContain('h3')
    expect(packagesIn(modules)).not.toContain('typescript')
    // oclif reads the plugin's manifest at start, and imports its code only to run its commands
    expect(packagesIn(modules)).not.toContain('@oclif/plugin-autocomplete')
  })
})
