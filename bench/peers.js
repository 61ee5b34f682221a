// The servers a user might pick instead of tablepay, each in its own
// process, run on the same request stream in the same rounds: WireMock (a
// stateless stub on the JVM), Prism's mock server on tablepay's own OpenAPI
// document (stateless, validates requests against it) and json-server v1
// (stateful, writes its whole JSON file). What each does less:
// docs/benchmarks.md "Peers". Prism comes with the project, whose tests use
// it; WireMock and json-server from bench/.peers (bench/peer-modules.js).
import {execFile, spawn} from 'node:child_process'
import {readdirSync} from 'node:fs'
import {writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {checkBody} from './load.js'
import {peerPath} from './peer-modules.js'
import {ROOT, track, WRITE_KEY} from './processes.js'
import {freePort} from '../scripts/free-port.js'

const run = promisify(execFile)
/** Prism serves the document's paths without its server's /v1. */
export const PRISM_BASE = '/checks/external/'
/** json-server has no route for tablepay's paths: its checks live at /checks/:id. */
export const JSON_SERVER_BASE = '/checks/'

/**
 * @typedef {{name: string, url: string, pid: number, base: string, stop: () => Promise<unknown>}} Peer
 */

/**
 * Spawns `command` and resolves once `ready` (a URL) answers `accept`ed
 * status, within `seconds`.
 */
async function startPeer(name, command, args, {ready, base, seconds = 90, headers = {}}) {
  const child = track(spawn(command, args, {cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe']}))
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)))
  const exited = new Promise((resolve) => child.on('exit', resolve))
  const deadline = performance.now() + seconds * 1000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode}) before answering:\n${stderr}`)
    const status = await fetch(ready, {headers}).then(
      (res) => res.arrayBuffer().then(() => res.status),
      () => 0,
    )
    if (status >= 200 && status < 300) break
    if (performance.now() > deadline) throw new Error(`${name} did not answer ${ready} in ${seconds} s:\n${stderr}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  return {
    name,
    url: new URL(ready).origin,
    pid: child.pid,
    base,
    stop: () => {
      if (child.exitCode === null) child.kill('SIGKILL')
      return exited
    },
  }
}

/** Whether a Java runtime answers `java -version`. */
export async function hasJava() {
  try {
    await run('java', ['-version'])
    return true
  } catch {
    return false
  }
}

/**
 * WireMock standalone (the jar the `wiremock` package ships), with two
 * stubs that answer `check` (tablepay's rendered answer for a check) to
 * every PUT and GET of a check. Request journal and logging off: a stub
 * kept for load keeps no history. Its root dir (mappings/, __files/) is
 * under `dir`: by default WireMock makes them in the working directory.
 */
export async function startWireMock(dir, check) {
  const build = await peerPath('wiremock', 'build')
  const jar = readdirSync(build).find((f) => /^wiremock-standalone-.*\.jar$/.test(f))
  if (!jar) throw new Error(`no WireMock jar in ${build}`)
  const port = await freePort()
  const args = ['-jar', join(build, jar), '--root-dir', join(dir, 'wiremock'), '--port', String(port)]
  args.push('--bind-address', '127.0.0.1')
  args.push('--no-request-journal', '--disable-request-logging', '--disable-banner')
  const peer = await startPeer('WireMock', 'java', args, {
    ready: `http://127.0.0.1:${port}/__admin/health`,
    base: '/v1/checks/external/',
  })
  for (const method of ['PUT', 'GET']) {
    const res = await fetch(`${peer.url}/__admin/mappings`, {
      method: 'POST',
      headers: {'content-type': 'application/json'},
      body: JSON.stringify({
        request: {method, urlPathPattern: '/v1/checks/external/[^/]+'},
        response: {status: 200, headers: {'content-type': 'application/json'}, body: check},
      }),
    })
    if (res.status !== 201) throw new Error(`WireMock: adding a stub answered ${res.status}: ${await res.text()}`)
  }
  return peer
}

/**
 * Prism's mock server (`@stoplight/prism-cli`, static examples) on the
 * OpenAPI document `tablepay openapi` prints. Log level `warn`: at `info`
 * it logs every request.
 */
export async function startPrism(dir) {
  const document = join(dir, 'openapi.json')
  const {stdout} = await run(process.execPath, [join(ROOT, 'bin/run.js'), 'openapi', '--json'], {
    cwd: ROOT,
    maxBuffer: 64 * 2 ** 20,
  })
  await writeFile(document, stdout)
  const port = await freePort()
  const cli = await peerPath('@stoplight/prism-cli', 'dist', 'index.js')
  const args = [cli, 'mock', document, '--port', String(port), '--host', '127.0.0.1', '--verboseLevel', 'warn']
  return startPeer('Prism', process.execPath, args, {
    ready: `http://127.0.0.1:${port}${PRISM_BASE}chk-0`,
    headers: {authorization: `Bearer ${WRITE_KEY}`},
    base: PRISM_BASE,
  })
}

/**
 * json-server v1 on a file of `count` checks (`prefix0…` at version 1, the
 * bodies the bench pushes), under /checks/:id.
 */
export async function startJsonServer(dir, prefix, count) {
  const file = join(dir, 'db.json')
  const checks = Array.from({length: count}, (_, i) => ({id: `${prefix}${i}`, ...JSON.parse(checkBody(i, 1))}))
  await writeFile(file, JSON.stringify({checks}, null, 2))
  const port = await freePort()
  const bin = await peerPath('json-server', 'lib', 'bin.js')
  return startPeer('json-server', process.execPath, [bin, file, '--port', String(port), '--host', '127.0.0.1'], {
    ready: `http://127.0.0.1:${port}${JSON_SERVER_BASE}${prefix}0`,
    base: JSON_SERVER_BASE,
  })
}
