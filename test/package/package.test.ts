/**
 * The package as a user gets it (test/helpers/packed-project.ts): `npm pack`, installed into a fresh project,
 * type-checked and run there.
 */
import {spawn} from 'node:child_process'
import {existsSync} from 'node:fs'
import {copyFile, mkdir, readFile, rename, symlink, utimes, writeFile} from 'node:fs/promises'
import {join, posix} from 'node:path'
import {beforeAll, expect, test} from 'vitest'
import {declarationsReached} from '../../scripts/declarations.js'
import {ROOT, WRITE_KEY} from '../helpers/cli.js'
import {cachedInstall, installInto, pack, run, tscErrors, versionOf} from '../helpers/packed-project.js'
import {makeTempDir, testCache} from '../helpers/temp-dirs.js'

/** The jest majors a user's project may run: the one DESIGN.md names, and the newest. */
const JESTS = ['29.7.0', '30.5.2']

let dir: string
/** The fresh project the tarball is installed into. */
let consumer: string
/** The packed package. */
let tarball: string
/** Paths inside the tarball. */
let files: string[]
/** Each jest's folder, by version: it runs against the consumer project from there, as a global jest does. */
const jests = new Map<string, string>()
const installed = (path: string) => join(consumer, 'node_modules', 'tablepay', path)

/** Packs the package and installs it into the fresh project, with msw (an optional peer) and node's types. */
async function installTarball(): Promise<void> {
  const packed = await pack(dir)
  tarball = packed.tarball
  files = packed.files
  consumer = join(dir, 'consumer')
  const peers = [`msw@${await versionOf('msw')}`, `@types/node@${await versionOf('@types/node')}`]
  await installInto(consumer, packed.tarball, peers)
}

beforeAll(async () => {
  dir = await makeTempDir('tablepay-package-')
  const installJest = async (version: string) =>
    jests.set(version, await cachedInstall(`jest@${version}`, [`jest@${version}`]))
  await Promise.all([...JESTS.map(installJest), installTarball()])
}, 180_000)

test('the tarball has the LICENSE package.json names, docs/, a repository, a homepage, no bin/dev.js', async () => {
  expect(files).toContain('LICENSE')
  const pkg = JSON.parse(await readFile(installed('package.json'), 'utf8'))
  expect(pkg.license).toBe('MIT')
  expect(await readFile(installed('LICENSE'), 'utf8')).toMatch(/^MIT License\n/)
  expect(files).toContain('docs/api.md')
  expect(pkg.repository?.url).toMatch(/^git\+https:\/\//)
  expect(pkg.homepage).toMatch(/^https:\/\//)
  expect(files).toContain('bin/run.js')
  expect(files).not.toContain('bin/dev.js')
})

test('examples/ ships its sources, not what running them leaves (.class files, __pycache__)', () => {
  expect(files).toContain('examples/receivers/python-http.py')
  expect(files).toContain('examples/receivers/Receiver.java')
  expect(files.filter((path) => path.startsWith('examples/') && !/\.(mjs|py|java)$/.test(path))).toEqual([])
})

test('the package has no script npm runs when it installs it, which npm 11 would ask the user to allow', async () => {
  const {scripts = {}} = JSON.parse(await readFile(installed('package.json'), 'utf8')) as {scripts?: object}
  const atInstall = ['preinstall', 'install', 'postinstall', 'prepare']
  expect(Object.keys(scripts).filter((name) => atInstall.includes(name))).toEqual([])
})

test('every docs/ page the shipped files point to ships too', async () => {
  const texts = files.filter((path) => /\.(js|md|json)$/.test(path) && !path.endsWith('.map'))
  const named = new Map<string, string>()
  for (const path of texts) {
    const text = await readFile(installed(path), 'utf8')
    for (const [page] of text.matchAll(/\bdocs\/[\w-]+\.md\b/g)) named.set(page, path)
  }
  expect([...named.keys()]).toContain('docs/api.md')
  const missing = [...named].filter(([page]) => !files.includes(page)).map(([page, from]) => `${page} in ${from}`)
  expect(missing).toEqual([])
})

test('every source map carries its sources, or names files that ship', async () => {
  const maps = files.filter((path) => path.endsWith('.map'))
  expect(maps.length).toBeGreaterThan(0)
  const broken: string[] = []
  for (const path of maps) {
    type SourceMap = {sources: string[]; sourcesContent?: (string | null)[]}
    const map = JSON.parse(await readFile(installed(path), 'utf8')) as SourceMap
    map.sources.forEach((source, i) => {
      const shipped = files.includes(posix.join(posix.dirname(path), source))
      if (!shipped && typeof map.sourcesContent?.[i] !== 'string') broken.push(`${path} → ${source}`)
    })
  }
  expect(broken.slice(0, 5)).toEqual([])
})

const CONSUMER = `import {verifySignature, type Event} from 'tablepay'
import {TablepayApiError, TablepayClient} from 'tablepay/client'
import {startSimulator, type Simulator} from 'tablepay/testing'
MSW_IMPORT
export async function main(event: Event): Promise<Simulator> {
  const sim = await startSimulator({seed: 'node_modules/tablepay/fixtures/seed.json'})
  const client = new TablepayClient({url: sim.url, apiKey: sim.apiKey})
  const accounts: string[] = sim.accounts.map((account) => account.id)
  console.log(verifySignature('{}', 't=1,v1=00', 'whsec_x').valid, client, accounts, event.type)
  const status: number | undefined = await client.getCheck('chk_x').then(
    () => undefined,
    (error: unknown) => (error instanceof TablepayApiError ? error.status : undefined),
  )
  console.log(status)
  MSW_USE
  return sim
}
`
const CLIENT_ONLY = `import {resolveClientConfig, TablepayClient} from 'tablepay/client'
export async function connect(): Promise<TablepayClient> {
  return new TablepayClient(await resolveClientConfig({url: 'http://127.0.0.1:4747'}))
}
`
const MSW_IMPORT = `import type {HttpHandler} from 'msw'
import {createTablepayHandlers} from 'tablepay/msw'`
const MSW_USE = `const handlers: HttpHandler[] = (await createTablepayHandlers()).handlers
  console.log(handlers.length)`

/**
 * Writes a project of the consumer's that type-checks `source` as an ES module (`name.ts`, the project being
 * `"type": "module"`) and as CommonJS (`name.cts`) in one program: strict, no skipLibCheck.
 * skipDefaultLibCheck only skips TypeScript's own lib files.
 */
async function typeProject(
  name: string,
  source: string,
  {
    lib,
    module,
    resolution = module,
    types = ['node'],
  }: {lib: string[]; module: string; resolution?: string; types?: string[]},
) {
  const sources = [`${name}.ts`, `${name}.cts`]
  for (const file of sources) await writeFile(join(consumer, file), source)
  // esModuleInterop, as `tsc --init` sets it: zod's CommonJS declarations need it under Node10
  const modules = {module, moduleResolution: resolution, target: 'ES2022', esModuleInterop: true}
  const compilerOptions = {
    strict: true,
    noEmit: true,
    incremental: true,
    skipDefaultLibCheck: true,
    ...modules,
    lib,
    types,
  }
  await writeFile(join(consumer, `tsconfig.${name}.json`), JSON.stringify({compilerOptions, files: sources}))
  return {path: `tsconfig.${name}.json`}
}

// msw's own types need the DOM lib; a node-only user of the other entries has none
const WITH_MSW = CONSUMER.replace('MSW_IMPORT', MSW_IMPORT).replace('MSW_USE', MSW_USE)
const NODE_ONLY = CONSUMER.replace('MSW_IMPORT\n', '').replace('  MSW_USE\n', '')

/**
 * The projects each TypeScript checks (`typeProject`), `prefix` naming their files: node16, where CommonJS may
 * not require an ES module, without msw (msw 2's own CommonJS declarations import an ES module's, rettime's,
 * which fails there for any user of msw's types); a bundler's resolution (Vite's, Next's); the client from a
 * project without Node's types (a browser's, a Deno's), which declares none it needs.
 */
const typeProjects = async (prefix: string) => [
  await typeProject(`${prefix}all`, WITH_MSW, {lib: ['ES2023', 'DOM'], module: 'NodeNext'}),
  await typeProject(`${prefix}node`, NODE_ONLY, {lib: ['ES2023'], module: 'Node16'}),
  await typeProject(`${prefix}bundler`, WITH_MSW, {lib: ['ES2023', 'DOM'], module: 'Preserve', resolution: 'Bundler'}),
  await typeProject(`${prefix}client`, CLIENT_ONLY, {lib: ['ES2023', 'DOM'], module: 'NodeNext', types: []}),
]

test("the public types compile from ES modules and CommonJS under tsc --strict without skipLibCheck, in node and with msw's DOM", async () => {
  const references = [
    ...(await typeProjects('')),
    // the resolution of TypeScript before exports (`node10`), which reads the entries' paths from typesVersions
    await typeProject('legacy', WITH_MSW, {lib: ['ES2023', 'DOM'], module: 'CommonJS', resolution: 'Node10'}),
  ]
  await writeFile(join(consumer, 'tsconfig.json'), JSON.stringify({files: [], references}))
  const infos = references.map(({path}) => path.replace(/json$/, 'tsbuildinfo'))
  const cache = await typesCache()
  await restoreBuildInfo(cache, infos)
  // both programs in one tsc: a build shares the files they both read (2 s of CPU less than two runs)
  const errors = await tscErrors(consumer, ['-b', 'tsconfig.json'])
  await keepBuildInfo(cache, infos)
  expect(errors).toBe('')
}, 120_000)

test('the public types compile under TypeScript 7 too, which has no node10 resolution', async () => {
  const typescript = 'typescript@7.0.2'
  const tsc = join(await cachedInstall(typescript, [typescript]), 'node_modules', 'typescript', 'bin', 'tsc')
  const errors: string[] = []
  for (const {path} of await typeProjects('ts7-')) errors.push(await tscErrors(consumer, ['-p', path], tsc))
  expect(errors.join('')).toBe('')
}, 120_000)

/**
 * Where the type check's build info is kept from one run to the next, named for TypeScript's version: tsc
 * checks again the files whose text changed and those that import them, and takes the rest's diagnostics
 * from it (msw's and node's declarations, most of the 8 s of CPU the check cost).
 */
async function typesCache(): Promise<string> {
  const {version} = JSON.parse(await readFile(join(ROOT, 'node_modules', 'typescript', 'package.json'), 'utf8'))
  const path = testCache(`tsc-${version as string}`)
  await mkdir(path, {recursive: true})
  return path
}

/** Puts the kept build info in the project, dated long ago: tsc -b builds again, from it, and never skips. */
async function restoreBuildInfo(cache: string, infos: string[]): Promise<void> {
  for (const info of infos) {
    const kept = join(cache, info)
    if (!existsSync(kept)) continue
    await copyFile(kept, join(consumer, info))
    await utimes(join(consumer, info), 0, 0)
  }
}

/** Keeps the project's build info for the next run: written aside and renamed, so a run beside this one reads a whole file. */
async function keepBuildInfo(cache: string, infos: string[]): Promise<void> {
  for (const info of infos) {
    const temp = join(cache, `${info}.${process.pid}.tmp`)
    await copyFile(join(consumer, info), temp)
    await rename(temp, join(cache, info))
  }
}

test("the declarations of the four entry points, in both formats, reach no h3 type: only their own, zod's and msw's", async () => {
  type Exports = {exports: Record<string, string | Record<'import' | 'require', {types: string}>>}
  const pkg = JSON.parse(await readFile(installed('package.json'), 'utf8')) as Exports
  const entries = Object.values(pkg.exports).flatMap((entry) =>
    typeof entry === 'string' ? [] : [entry.import.types, entry.require.types],
  )
  expect(entries).toHaveLength(8)
  expect(declarationsReached(installed(''), entries).packages).toEqual(['msw', 'zod'])
})

test('each entry point falls back to its ES module for a resolver that asks for neither import nor require', async () => {
  type Entry = {import: {default: string}; default?: string}
  const pkg = JSON.parse(await readFile(installed('package.json'), 'utf8')) as {exports: Record<string, string | Entry>}
  const entries = Object.values(pkg.exports).filter((entry): entry is Entry => typeof entry !== 'string')
  expect(entries).toHaveLength(4)
  for (const entry of entries) expect(entry.default).toBe(entry.import.default)
  // the conditions are tried in their order: the fallback comes last
  for (const entry of entries) expect(Object.keys(entry).at(-1)).toBe('default')
})

test.each(JESTS)(
  "jest %s with its default config runs a CommonJS test of the simulator, whose errors are the client's classes",
  async (version) => {
    // a project of its own: jest takes the .js files of a "type": "module" project for ES modules
    const project = join(consumer, `jest-${version}`)
    await mkdir(project)
    await writeFile(join(project, 'package.json'), JSON.stringify({name: 'jest-project', private: true}))
    const spec = `const {createServer} = require('node:http')
const {startSimulator} = require('tablepay/testing')
const {TablepayClient, TablepayApiError, TablepayConnectionError} = require('tablepay/client')

test('the simulator answers', async () => {
  const sim = await startSimulator()
  try {
    const client = new TablepayClient({url: sim.url, apiKey: sim.apiKey})
    expect((await client.listLocations()).data.length).toBeGreaterThan(0)
    await expect(sim.faults.clear('flt_missing')).rejects.toBeInstanceOf(TablepayApiError)
  } finally {
    await sim.close()
  }
})

test('a stream cut off midway fails with the connection error', async () => {
  // undici's TypeError('terminated') is Node's, not jest's global TypeError
  const server = createServer((req, res) => {
    res.writeHead(200, {'content-type': 'text/event-stream'})
    res.write(': open\\n\\n', () => res.socket.destroy())
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  try {
    const client = new TablepayClient({url: 'http://127.0.0.1:' + server.address().port, apiKey: 'tp_test_demo_write'})
    const messages = await client.openStream()
    await expect((async () => { for await (const message of messages) void message })()).rejects.toBeInstanceOf(
      TablepayConnectionError,
    )
  } finally {
    server.close()
  }
})
`
    await writeFile(join(project, 'simulator.test.js'), spec)
    // its cache in the project, which the test removes, rather than in the temp dir
    const args = [
      join(jests.get(version)!, 'node_modules', 'jest', 'bin', 'jest.js'),
      '--cacheDirectory',
      join(project, '.jest'),
    ]
    const {stderr} = await run(process.execPath, args, {cwd: project})
    expect(stderr).toMatch(/Tests: +2 passed, 2 total/)
  },
  60_000,
)

/** The newest msw whose CommonJS jest loads (README, "In your tests"), and a project of it, made once. */
const JEST_MSW = 'msw@2.11.2'
let jestMswProject: Promise<string> | undefined
const mswProject = () =>
  (jestMswProject ??= (async () => {
    const project = join(dir, 'jest-msw')
    await installInto(project, tarball, [JEST_MSW])
    return project
  })())

test.each(JESTS)(
  `jest %s runs the README's msw flow in CommonJS (${JEST_MSW}), and msw sees no request but the test's`,
  async (version) => {
    // its own folder: jest takes the .js files of a "type": "module" project for ES modules
    const project = join(await mswProject(), `jest-${version}`)
    await mkdir(project)
    await writeFile(join(project, 'package.json'), JSON.stringify({name: 'jest-msw-project', private: true}))
    const spec = `const {http, HttpResponse} = require('msw')
const {setupServer} = require('msw/node')
const {verifySignature} = require('tablepay')
const {TablepayClient} = require('tablepay/client')
const {createTablepayHandlers} = require('tablepay/msw')

test('a pushed check reaches my receiver, signed', async () => {
  // the package's example seed, which has one location, by the short name a nested project finds it by
  const tablepay = await createTablepayHandlers({seed: 'fixtures/seed.json'})
  let secret = ''
  let delivered
  const verified = new Promise((resolve) => (delivered = resolve))
  const unhandled = []
  const server = setupServer(
    ...tablepay.handlers,
    http.post('https://pos.example/hooks', async ({request}) => {
      delivered(verifySignature(await request.text(), request.headers.get('x-tablepay-signature'), secret).valid)
      return new HttpResponse(null, {status: 204})
    }),
  )
  server.listen({onUnhandledRequest: (request) => unhandled.push(request.method + ' ' + request.url)})
  try {
    const client = new TablepayClient({url: tablepay.url, apiKey: tablepay.apiKey})
    secret = (await client.createWebhookEndpoint({url: 'https://pos.example/hooks'})).secret
    const totals = {subtotal_cents: 0, tax_cents: 0, total_cents: 0}
    await client.pushCheck('t12', {table: {number: '12'}, status: 'open', items: [], totals})
    expect({verified: await verified, unhandled}).toEqual({verified: true, unhandled: []})
  } finally {
    server.close()
    await tablepay.close()
  }
})
`
    await writeFile(join(project, 'msw.test.js'), spec)
    const jest = join(jests.get(version)!, 'node_modules', 'jest', 'bin', 'jest.js')
    const args = [jest, '--cacheDirectory', join(project, '.jest')]
    const {stderr} = await run(process.execPath, args, {cwd: project}).catch((error: {stderr: string}) => error)
    expect(stderr).toMatch(/Tests: +1 passed, 1 total/)
  },
  120_000,
)

// each format has its own copy of the classes (ARCHITECTURE.md, "Two module formats"), and a project may mix them
test("an error of one format is an instance of the other format's classes exactly when it is of its own", async () => {
  const script = `import {createRequire} from 'node:module'
const require = createRequire(import.meta.url)
const classes = new Map()
for (const entry of ['tablepay', 'tablepay/client', 'tablepay/testing', 'tablepay/msw']) {
  const [esm, cjs] = [await import(entry), require(entry)]
  for (const [name, value] of Object.entries(esm))
    if (value?.prototype instanceof Error) classes.set(name, {esm: value, cjs: cjs[name]})
}
const differ = []
for (const [a, A] of classes)
  for (const [b, B] of classes)
    for (const [from, to] of [['esm', 'cjs'], ['cjs', 'esm']]) {
      const error = Object.create(A[from].prototype)
      if (error instanceof B[to] !== error instanceof B[from]) differ.push(\`\${from} \${a} instanceof \${to} \${b}\`)
    }
// as a jest setup in CommonJS and test helpers in ES modules meet: an error the simulator's controls threw
const {TablepayError, TablepayApiError, TablepayConnectionError} = await import('tablepay/client')
const sim = await require('tablepay/testing').startSimulator()
const thrown = await sim.faults.clear('flt_missing').catch((error) => error)
await sim.close()
const instanceOf = [TablepayError, TablepayApiError, TablepayConnectionError].map((Class) => thrown instanceof Class)
console.log(JSON.stringify({classes: [...classes.keys()].sort(), differ, instanceOf}))
`
  await writeFile(join(consumer, 'both-formats.mjs'), script)
  const {stdout} = await run(process.execPath, ['both-formats.mjs'], {cwd: consumer})
  expect(JSON.parse(stdout)).toEqual({
    classes: [
      'InvalidScenarioError',
      'ScenarioFailedError',
      'SignatureVerificationError',
      'TablepayApiError',
      'TablepayConfigError',
      'TablepayConnectionError',
      'TablepayError',
      'TablepayEventStreamError',
      'TablepayTimeoutError',
      'TablepayUnexpectedAnswerError',
    ],
    differ: [],
    instanceOf: [true, true, false],
  })
})

test("the seed path the README shows, and the short fixtures/seed.json, work in a user's project", async () => {
  const readme = await readFile(installed('README.md'), 'utf8')
  const blocks = [...readme.matchAll(/```\w*\n([\s\S]*?)```/g)].map((m) => m[1]!).join('\n')
  const paths = [...new Set([...blocks.matchAll(/[\w./-]*fixtures\/seed\.json/g)].map((m) => m[0]))]
  expect(paths.length).toBeGreaterThan(0)
  expect(paths.filter((path) => !existsSync(join(consumer, path)))).toEqual([])
  // and the shipped code starts the simulator with it, from the project's root as a test runner does
  // so does the short name that `serve --help` and the shipped examples use: a relative seed path
  // not found in the project is looked up in the package
  // both in one process, one after the other: a process for each cost 0.4 s of CPU more
  const seeds = [paths[0], 'fixtures/seed.json']
  const script = `import {startSimulator} from 'tablepay/testing'
for (const seed of ${JSON.stringify(seeds)}) {
  const sim = await startSimulator({seed})
  console.log(JSON.stringify({seed, apiKey: sim.apiKey, health: (await fetch(sim.url + '/health')).status}))
  await sim.close()
}`
  await writeFile(join(consumer, 'start.mjs'), script)
  const {stdout} = await run(process.execPath, ['start.mjs'], {cwd: consumer})
  const started = stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as unknown)
  expect(started).toEqual(seeds.map((seed) => ({seed, apiKey: 'tp_test_demo_write', health: 200})))
})

test('every code block of the README\'s "In your tests" runs as written, with vitest, in a user\'s project', async () => {
  const readme = await readFile(installed('README.md'), 'utf8')
  const start = readme.indexOf('\n## In your tests\n')
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1))
  const blocks = [...section.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map(([, lang, code]) => ({lang, code: code!}))
  expect(blocks.map(({lang}) => lang)).toEqual(['ts', 'ts'])
  // the user's vitest: this repository's, linked into the project
  await symlink(join(ROOT, 'node_modules', 'vitest'), join(consumer, 'node_modules', 'vitest'), 'dir')
  const files = blocks.map((_, i) => `readme-${i + 1}.test.ts`)
  for (const [i, {code}] of blocks.entries()) await writeFile(join(consumer, files[i]!), code)
  // a run of its own, not a part of this one, in plain text
  const own = Object.entries(process.env).filter(([name]) => !/^(VITEST|TABLEPAY_|FORCE_COLOR)/.test(name))
  const env = {...Object.fromEntries(own), NO_COLOR: '1'}
  const vitest = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs')
  const {stdout} = await run(process.execPath, [vitest, 'run', ...files], {cwd: consumer, env})
  expect(stdout).toMatch(/Tests +2 passed \(2\)/)
}, 60_000)

// serve is bundled at build (scripts/serve-bundle.js): its run, its oclif command and their chunks must all ship
test.each([
  ['the lean path', []],
  ['oclif (--cors)', ['--cors', '*']],
])("`tablepay serve` from a user's project, through %s, serves the API and the table page", async (_, extra) => {
  const bin = join(consumer, 'node_modules', '.bin', 'tablepay')
  // the seed where the README gives it: the lean path takes a seed file only where given
  const seed = 'node_modules/tablepay/fixtures/seed.json'
  const args = ['serve', '--port', '0', '--memory', '--seed', seed, '--json', ...extra]
  // a user's plain setup: no tablepay settings, debug output or colour theme, any of which sends serve through oclif
  const plain = Object.entries(process.env).filter(([name]) => !/^(TABLEPAY_|DEBUG$)/.test(name))
  const serve = spawn(bin, args, {
    cwd: consumer,
    env: {...Object.fromEntries(plain), HOME: dir, TABLEPAY_HOME: dir},
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const exited = new Promise((resolve) => serve.on('close', resolve))
  try {
    let stdout = ''
    const line = await new Promise<string>((resolve, reject) => {
      serve.stdout.on('data', (chunk) => (stdout += chunk) && stdout.includes('\n') && resolve(stdout.split('\n')[0]!))
      void exited.then((code) => reject(new Error(`serve exited ${code} before its ready line`)))
    })
    const {url, dashboard_url: dashboard} = JSON.parse(line) as {url: string; dashboard_url: string}
    const pushed = await fetch(`${url}/checks/external/t12`, {
      method: 'PUT',
      headers: {authorization: `Bearer ${WRITE_KEY}`, 'content-type': 'application/json'},
      body: await readFile(installed('fixtures/checks/open.json'), 'utf8'),
    })
    const {guest_url: guestUrl} = (await pushed.json()) as {guest_url: string}
    const answers = await Promise.all([dashboard, guestUrl, `${guestUrl}/qr.svg`].map((page) => fetch(page)))
    expect([pushed.status, ...answers.map((answer) => answer.status)]).toEqual([201, 200, 200, 200])
  } finally {
    serve.kill('SIGTERM')
    await exited
  }
})

test("the help's example files (fixtures/checks/…) are found in the package from a user's project", async () => {
  const bin = join(consumer, 'node_modules', '.bin', 'tablepay')
  const {stdout} = await run(bin, ['checks', 'lint', 'fixtures/checks/open.json', '--json'], {cwd: consumer})
  expect(JSON.parse(stdout)).toMatchObject({valid: true, files: [{file: 'fixtures/checks/open.json', valid: true}]})
})

test("the shipped scenarios ship: `scenario list` and `scenario validate NAME` find them from a user's project", async () => {
  const bin = join(consumer, 'node_modules', '.bin', 'tablepay')
  const listed = JSON.parse((await run(bin, ['scenario', 'list', '--json'], {cwd: consumer})).stdout).data
  expect(listed.map((s: {name: string}) => s.name)).toContain('split-bill')
  expect(listed[0].file).toContain(join('node_modules', 'tablepay', 'fixtures', 'scenarios'))
  const {stdout} = await run(bin, ['scenario', 'validate', 'split-bill', '--json'], {cwd: consumer})
  expect(JSON.parse(stdout)).toMatchObject({valid: true, name: 'split-bill'})
})

test("`tablepay autocomplete bash` from a user's project prints the setup steps", async () => {
  const bin = join(consumer, 'node_modules', '.bin', 'tablepay')
  // the plugin writes its completion functions under the cache dir
  const env = {...process.env, XDG_CACHE_HOME: join(dir, 'cache')}
  const {stdout} = await run(bin, ['autocomplete', 'bash'], {cwd: consumer, env})
  expect(stdout).toContain('printf "$(tablepay autocomplete script bash)" >> ~/.bashrc')
})
