/**
 * `tablepay/msw` under msw 3, as a user's project on it gets the package: npm resolves the optional peer
 * against the package's range (a range that left msw 3 out made npm refuse the whole install, ERESOLVE), and
 * the handlers run from ES modules and CommonJS. msw 3 needs Node 22.12 or later (it calls
 * `Promise.withResolvers`): the test runs it on this Node when it is one, else on one npm installs for it.
 */
import {readFile, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {beforeAll, expect, test} from 'vitest'
import {cachedInstall, installInto, pack, run, tscErrors, versionOf} from '../helpers/packed-project.js'
import {makeTempDir} from '../helpers/temp-dirs.js'

const MSW = 'msw@3.0.5'
const NODE = '22.23.5'

let project: string
let node: string

/** A Node msw 3 runs on: this one from 22.12, else Node 22 from the npm registry's package of this platform. */
async function nodeForMsw3(): Promise<string> {
  const [major, minor] = process.versions.node.split('.').map(Number) as [number, number]
  if (major > 22 || (major === 22 && minor >= 12)) return process.execPath
  const name = `node-${process.platform}-${process.arch}`
  const folder = join(await cachedInstall(`${name}-${NODE}`, [`${name}@${NODE}`]), 'node_modules', name)
  const {bin} = JSON.parse(await readFile(join(folder, 'package.json'), 'utf8')) as {bin: {node: string}}
  return join(folder, bin.node)
}

beforeAll(async () => {
  const dir = await makeTempDir('tablepay-msw3-')
  project = join(dir, 'consumer')
  const {tarball} = await pack(dir)
  const peers = [MSW, `@types/node@${await versionOf('@types/node')}`]
  ;[node] = await Promise.all([nodeForMsw3(), installInto(project, tarball, peers)])
}, 180_000)

/**
 * The README's msw flow under msw 3, where `http` comes from `msw/http`: a push through the typed client, its
 * delivery handed to the receiver's handler with a signature that verifies, and a reset fault seen as the
 * lost answer. `IMPORTS` is the module format's.
 */
const SCRIPT = `IMPORTS
const RECEIVER = 'https://pos.example/hooks'

async function main() {
  const tablepay = await createTablepayHandlers({seed: 'node_modules/tablepay/fixtures/seed.json'})
  let delivered
  const arrived = new Promise((resolve) => (delivered = resolve))
  const receiver = http.post(RECEIVER, async ({request}) => {
    delivered({body: await request.text(), signature: request.headers.get('x-tablepay-signature')})
    return new HttpResponse(null, {status: 204})
  })
  const server = setupServer(...tablepay.handlers, receiver)
  server.listen({onUnhandledFrame: 'error'})
  try {
    const client = new TablepayClient({url: tablepay.url, apiKey: tablepay.apiKey})
    const endpoint = await client.createWebhookEndpoint({url: RECEIVER, event_types: ['check.created']})
    const check = JSON.parse(readFileSync('node_modules/tablepay/fixtures/checks/open.json', 'utf8'))
    const pushed = await client.pushCheck('t12', check)
    const {body, signature} = await arrived
    await tablepay.faults.add({reset: true})
    const lost = await client.listChecks().catch((error) => error)
    return {
      pushed: pushed.result,
      delivered: JSON.parse(body).data.id === pushed.check.id,
      signed: verifySignature(body, signature, endpoint.secret).valid,
      lost: lost.name,
    }
  } finally {
    server.close()
    await tablepay.close()
  }
}
main().then((result) => console.log(JSON.stringify(result)))
`

const FORMATS: Record<string, [file: string, imports: string]> = {
  'ES modules': [
    'msw3.mjs',
    `import {readFileSync} from 'node:fs'
import {http, HttpResponse} from 'msw/http'
import {setupServer} from 'msw/node'
import {verifySignature} from 'tablepay'
import {TablepayClient} from 'tablepay/client'
import {createTablepayHandlers} from 'tablepay/msw'`,
  ],
  // Node 22.12 and later require msw 3's ES modules from CommonJS
  CommonJS: [
    'msw3.cjs',
    `const {readFileSync} = require('node:fs')
const {http, HttpResponse} = require('msw/http')
const {setupServer} = require('msw/node')
const {verifySignature} = require('tablepay')
const {TablepayClient} = require('tablepay/client')
const {createTablepayHandlers} = require('tablepay/msw')`,
  ],
}

test.each(Object.entries(FORMATS))(
  'from %s, the handlers answer, deliver signed webhooks and lose answers under msw 3',
  async (_, [file, imports]) => {
    await writeFile(join(project, file), SCRIPT.replace('IMPORTS', imports))
    const {stdout} = await run(node, [file], {cwd: project})
    expect(JSON.parse(stdout)).toEqual({
      pushed: 'created',
      delivered: true,
      signed: true,
      lost: 'TablepayConnectionError',
    })
  },
)

test("the msw entry point's types compile against msw 3's under tsc --strict without skipLibCheck", async () => {
  const source = `import type {HttpHandler} from 'msw'
import {createTablepayHandlers} from 'tablepay/msw'
const handlers: HttpHandler[] = (await createTablepayHandlers()).handlers
console.log(handlers.length)
`
  await writeFile(join(project, 'types.ts'), source)
  const compilerOptions = {
    strict: true,
    noEmit: true,
    skipDefaultLibCheck: true,
    module: 'NodeNext',
    target: 'ES2022',
    lib: ['ES2023', 'DOM'],
    types: ['node'],
  }
  await writeFile(join(project, 'tsconfig.json'), JSON.stringify({compilerOptions, files: ['types.ts']}))
  expect(await tscErrors(project, ['-p', 'tsconfig.json'])).toBe('')
}, 60_000)
