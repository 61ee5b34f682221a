import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {startServer} from '../../src/server/start.js'
import {checkWith} from '../helpers/checks.js'
import {type CliServer, IN_MEMORY, runCli, startCliServer} from '../helpers/cli.js'
import {call, makeTempDir, TEST_SEED, WRITE_KEY} from '../helpers/simulator.js'

const cleanup: (() => Promise<unknown>)[] = []
let server: CliServer | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
  while (cleanup.length > 0) await cleanup.pop()!()
})

/** Every event of the account, newest first, walked a page of 100 at a time. */
async function allEvents(
  base: string,
): Promise<{id: string; created_at: string; data: {external_id: string; version: number}}[]> {
  const events = []
  let cursor: string | null = null
  do {
    const page = await call(base, 'GET', `/v1/events?limit=100${cursor ? `&starting_after=${cursor}` : ''}`)
    events.push(...page.body.data)
    cursor = page.body.next_cursor
  } while (cursor)
  return events
}

const push = (base: string, external: string, version: number) =>
  call(base, 'PUT', `/v1/checks/external/${external}`, {body: checkWith([['a', version, 100]], {version})})

/** Lets the scheduler clock move: an advance answers once retention has caught up. */
const advance = (base: string) => call(base, 'POST', '/v1/sim/clock/advance', {body: {seconds: 1}})

describe('retention over HTTP', () => {
  it('--max-events 100: after 250 changing pushes and an advance, the account lists the newest 100 events', async () => {
    const running = await startServer({port: 0, host: '127.0.0.1', seed: TEST_SEED, retention: {maxEvents: 100}})
    cleanup.push(() => running.close())
    for (let version = 1; version <= 250; version++)
      expect((await push(running.url, 't1', version)).status).toBeLessThan(300)
    expect((await advance(running.url)).status).toBe(200)
    const events = await allEvents(running.url)
    expect(events.map((e) => e.data.version)).toEqual(Array.from({length: 100}, (_, i) => 250 - i))
  })

  it('a SIGKILL during pushes and pruning loses nothing acknowledged; the restart prunes on to the newest 100', async () => {
    const dataDir = join(await makeTempDir(), 'data')
    server = await startCliServer(['--data', dataDir, '--seed', 'fixtures/seed.json', '--max-events', '100'])
    const running = server
    const base = server.url.replace(/\/v1$/, '')
    const acknowledged = new Map<string, number>()
    let killed: Promise<unknown> | undefined
    // 10 checks pushed side by side, each to a higher version in turn; once lane 0 has pushed 60 versions,
    // an advance sets pruning of the events past the maximum going, and 20 versions later the server is killed
    await Promise.all(
      Array.from({length: 10}, async (_, lane) => {
        for (let version = 1; version <= 100 && !killed; version++) {
          const answer = await push(base, `t${lane}`, version).catch(() => undefined)
          if (answer && answer.status < 300) acknowledged.set(`t${lane}`, version)
          if (lane === 0 && version === 60) void advance(base).catch(() => undefined)
          if (lane === 0 && version === 80) killed = running.kill('SIGKILL')
        }
      }),
    )
    await killed
    server = undefined

    const restarted = await startServer({port: 0, host: '127.0.0.1', dataDir, retention: {maxEvents: 100}})
    cleanup.push(() => restarted.close())
    const current = new Map<string, number>()
    for (const [external, version] of acknowledged) {
      const check = await call(restarted.url, 'GET', `/v1/checks/external/${external}`, {key: WRITE_KEY})
      // an answer lost to the kill may have been written: never less than acknowledged
      expect(check.body.version).toBeGreaterThanOrEqual(version)
      current.set(external, check.body.version)
    }
    expect((await advance(restarted.url)).status).toBe(200)
    const events = await allEvents(restarted.url)
    expect(new Set(events.map((e) => e.id)).size).toBe(100)
    const times = events.map((e) => e.created_at)
    expect(times).toEqual([...times].sort().reverse())
    // what survives of each check is its newest events, down from its current version
    for (const [external, version] of current) {
      const kept = events.filter((e) => e.data.external_id === external).map((e) => e.data.version)
      expect(kept).toEqual(Array.from({length: kept.length}, (_, i) => version - i))
    }
  })

  it('serve --max-events and --event-retention reach the server; a retention it cannot read exits 2 saying how to write one', async () => {
    server = await startCliServer([...IN_MEMORY, '--max-events', '3', '--event-retention', '7d'])
    const base = server.url.replace(/\/v1$/, '')
    for (let version = 1; version <= 6; version++) expect((await push(base, 't1', version)).status).toBeLessThan(300)
    expect((await advance(base)).status).toBe(200)
    expect((await allEvents(base)).map((e) => e.data.version)).toEqual([6, 5, 4])
    const refused = await runCli(['serve', '--memory', '--port', '0', '--event-retention', 'soon'])
    expect([refused.code, refused.stderr]).toEqual([2, expect.stringContaining('write it like 90, 500ms')])
  })
})
