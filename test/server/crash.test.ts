import {readdir, readFile, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {afterEach, expect, it, vi} from 'vitest'
import {startServer} from '../../src/server/start.js'
import {checkWith} from '../helpers/checks.js'
import {type CliServer, runCli, startCliServer} from '../helpers/cli.js'
import {call, makeTempDir, WRITE_KEY} from '../helpers/simulator.js'

let server: CliServer | undefined
afterEach(async () => {
  await server?.stop()
})

it('a serve killed with SIGKILL in the middle of concurrent pushes loses no push it answered 2xx', async () => {
  const dataDir = join(await makeTempDir(), 'data')
  server = await startCliServer(['--data', dataDir, '--seed', 'fixtures/seed.json'])
  const base = server.url.replace(/\/v1$/, '')
  const acknowledged = new Map<string, number>()
  let killed: Promise<unknown> | undefined

  // 40 POS terminals, each pushing new versions of its own checks as fast as it is answered
  const terminal = async (t: number) => {
    for (let n = 1; !killed; n++) {
      const id = `crash-${t}-${n % 3}`
      const version = n
      try {
        const answer = await call(base, 'PUT', `/v1/checks/external/${id}`, {
          body: checkWith([['a', n, 100]], {version}),
        })
        if (answer.status >= 200 && answer.status < 300)
          acknowledged.set(id, Math.max(acknowledged.get(id) ?? 0, version))
      } catch {
        return // the connection died with the server
      }
      if (acknowledged.size >= 60 && [...acknowledged.values()].reduce((a, b) => a + b, 0) >= 400)
        killed ??= server!.kill('SIGKILL')
    }
  }
  await Promise.all(Array.from({length: 40}, (_, t) => terminal(t)))
  expect(await killed).toBeNull()
  server = undefined

  for (const file of (await readdir(dataDir)).filter((f) => f.endsWith('.json') && f !== 'server.json')) {
    JSON.parse(await readFile(join(dataDir, file), 'utf8'))
  }
  const restarted = await startServer({port: 0, host: '127.0.0.1', dataDir})
  try {
    for (const [id, version] of acknowledged) {
      const answer = await call(restarted.url, 'GET', `/v1/checks/external/${id}`, {key: WRITE_KEY})
      expect([id, answer.status]).toEqual([id, 200])
      expect(answer.body.version).toBeGreaterThanOrEqual(version)
    }
  } finally {
    await restarted.close()
  }
})

it('after a kill, a restarted server compacts the journal it replayed once it answers', async () => {
  const dataDir = join(await makeTempDir(), 'data')
  server = await startCliServer(['--data', dataDir, '--seed', 'fixtures/seed.json'])
  const base = server.url.replace(/\/v1$/, '')
  expect((await call(base, 'PUT', '/v1/checks/external/replayed', {body: checkWith([['a', 1, 100]])})).status).toBe(201)
  await server.kill('SIGKILL')
  server = undefined
  const journal = async () => (await readdir(dataDir)).filter((f) => f.startsWith('journal.'))
  expect(await journal()).toHaveLength(1)
  const restarted = await startServer({port: 0, host: '127.0.0.1', dataDir})
  try {
    // the segment it replayed goes once a compaction holds it; only the one the start cut to stays
    await vi.waitFor(async () => expect(await journal()).toHaveLength(1))
    const [segment] = await journal()
    expect(await readFile(join(dataDir, segment!), 'utf8')).toBe('')
    const checks = await readFile(join(dataDir, 'checks.json'), 'utf8')
    expect(checks).toContain('"external_id":"replayed"')
  } finally {
    await restarted.close()
  }
})

it('after a kill, serve refuses a journal line damaged since, naming file and line, and --repair starts with the rest', async () => {
  const dataDir = join(await makeTempDir(), 'data')
  server = await startCliServer(['--data', dataDir, '--seed', 'fixtures/seed.json'])
  const base = server.url.replace(/\/v1$/, '')
  for (const id of ['kept-1', 'damaged', 'kept-2']) {
    expect((await call(base, 'PUT', `/v1/checks/external/${id}`, {body: checkWith([['a', 1, 100]])})).status).toBe(201)
  }
  await server.kill('SIGKILL')
  server = undefined

  // another valid JSON line, newline kept: only its checksum tells
  let damaged = {path: '', line: 0}
  for (const name of (await readdir(dataDir)).filter((f) => f.startsWith('journal.'))) {
    const lines = (await readFile(join(dataDir, name), 'utf8')).split('\n')
    const at = lines.findIndex((line) => line.includes('"external_id":"damaged"'))
    if (at === -1) continue
    lines[at] = lines[at]!.replace('"external_id":"damaged"', '"external_id":"tampered"')
    await writeFile(join(dataDir, name), lines.join('\n'))
    damaged = {path: join(dataDir, name), line: at + 1}
  }
  const refused = await runCli(['serve', '--port', '0', '--data', dataDir])
  expect(refused.code).toBe(1)
  expect(refused.stderr).toContain(`${damaged.path} line ${damaged.line} is corrupt: its checksum does not match`)
  expect(refused.stderr).toContain('--repair')

  server = await startCliServer(['--data', dataDir, '--repair'])
  expect(server.stderr()).toMatch(/--repair dropped 1 damaged part.*repair-.*\.ndjson/)
  const base2 = server.url.replace(/\/v1$/, '')
  const statuses = []
  for (const id of ['kept-1', 'damaged', 'tampered', 'kept-2']) {
    statuses.push((await call(base2, 'GET', `/v1/checks/external/${id}`, {key: WRITE_KEY})).status)
  }
  expect(statuses).toEqual([200, 404, 404, 200])
})
