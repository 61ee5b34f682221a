import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {startServer} from '../../src/server/start.js'
import type {Clock} from '../../src/domain/schemas.js'
import {advanceProgress, renderClock} from '../../src/cli/views/clock.js'
import {renderAttemptLine} from '../../src/cli/views/delivery.js'
import {checkWith} from '../helpers/checks.js'
import {startServeFlags} from '../helpers/api-server.js'
import {cliFor, type CliServer, spawnRunning, spawnServe} from '../helpers/cli.js'
import {startReceiver} from '../helpers/receiver.js'
import {call, makeTempDir, WRITE_KEY} from '../helpers/simulator.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

async function setup(respond?: Parameters<typeof startReceiver>[0]) {
  const [server, receiver] = await Promise.all([startServeFlags([]), startReceiver(respond)])
  cleanup.push(
    () => server.stop(),
    () => receiver.close(),
  )
  const {cli, json} = cliFor(server)
  const endpoint = await json(['webhooks', 'create', receiver.url, '-e', 'check.created'])
  receiver.verifyWith(endpoint.secret)
  const push = (id: string) => json(['checks', 'push', id, '-f', 'fixtures/checks/open.json'])
  return {server, receiver, cli, json, push, endpoint}
}

describe('clock show and clock reset', () => {
  it('show counts a --time-scale clock ahead, or behind, by how far it ran, not only by its advances', () => {
    const real = Date.parse('2026-01-01T12:00:00Z')
    const clock: Clock = {object: 'clock', advance: null, offset_seconds: 0, time_scale: 60, now: ''}
    const ran = {...clock, now: '2026-01-01T12:12:00.000Z'}
    expect(renderClock(ran, real)).toMatch(/\(12m ahead of real time, running 60x\)\.$/)
    const advanced = {...clock, offset_seconds: 3600, now: '2026-01-01T13:12:00.000Z'}
    expect(renderClock(advanced, real)).toMatch(/\(1h12m ahead of real time, running 60x\)\.$/)
    const slower = {...clock, time_scale: 0.5, now: '2026-01-01T11:59:30.000Z'}
    expect(renderClock(slower, real)).toMatch(/\(30s behind real time, running 0\.5x\)\.$/)
  })

  it('show says how far advances put the clock ahead; reset puts it back on real time and leaves retries due when they were', async () => {
    const {receiver, cli, json, push, endpoint} = await setup(() => 500)
    expect((await cli(['clock', 'show'])).stdout).toMatch(
      /^Scheduler clock: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(on real time\)\.$/m,
    )
    await push('r1')
    await receiver.waitFor(1)
    await json(['clock', 'advance', '2h'])
    // attempts 2, 3 and 4 ran on the way; attempt 5 is due 2h after attempt 4 was, on the advanced clock
    expect(receiver.received).toHaveLength(4)
    // the real seconds the attempts took are part of the 2h
    expect((await cli(['clock', 'show'])).stdout).toMatch(/\((2h|1h59m5\ds) ahead of real time\)\.$/m)
    const shown = await json(['clock', 'show'])
    expect(shown).toMatchObject({object: 'clock', advance: null})
    expect(shown.offset_seconds).toBeGreaterThan(7150)
    const [before] = (await json(['deliveries', 'list', '--endpoint', endpoint.id])).data

    const {code, stdout} = await cli(['clock', 'reset'])
    expect(code).toBe(0)
    expect(stdout).toMatch(/^Scheduler clock: .+ \(on real time\)\. Pending retries keep their due times\.$/m)
    const clock = await json(['clock', 'show'])
    expect(clock.offset_seconds).toBe(0)
    expect(Math.abs(Date.parse(clock.now) - Date.now())).toBeLessThan(60_000)
    const [after] = (await json(['deliveries', 'list', '--endpoint', endpoint.id])).data
    expect(after).toMatchObject({status: 'pending', next_attempt_at: before.next_attempt_at, attempts: before.attempts})
    // the retry is still ahead: an advance short of it runs nothing, one that reaches it runs it
    expect((await json(['clock', 'advance', '1h'])).attempts).toBe(0)
    expect((await json(['clock', 'advance', '3h'])).attempts).toBe(1)
    expect(receiver.received).toHaveLength(5)
  })

  it('an advance whose --timeout runs out says that it goes on in the server, and that running it again advances twice', async () => {
    let release = () => {}
    const held = new Promise<number>((resolve) => (release = () => resolve(500)))
    const {receiver, cli, push} = await setup(() => held)
    cleanup.push(async () => release())
    await push('t1')
    await receiver.waitFor(1)
    // the advance waits for the attempt out to the receiver that holds its answer
    const {code, stderr} = await cli(['clock', 'advance', '2h', '--timeout', '300ms'])
    expect(code).toBe(1)
    const said = stderr.replace(/\s*\n[\s›]*/g, ' ')
    expect(said).toContain('did not answer within 300 ms')
    expect(said).toContain(
      'The advance goes on in the server all the same: `tablepay clock show` shows the clock; running this again would advance it a second time.',
    )
  })

  it.each([
    {signal: 'SIGINT', json: false, exit: 130},
    {signal: 'SIGTERM', json: true, exit: 143},
  ] as const)(
    'an advance stopped by $signal (--json: $json) while it waits says it goes on in the server and exits $exit; with --json, stdout has the error body',
    async ({signal, json: jsonFlag, exit}) => {
      let release = () => {}
      const held = new Promise<number>((resolve) => (release = () => resolve(500)))
      const {server, receiver, json, push} = await setup(() => held)
      cleanup.push(async () => release())
      await push('t1')
      await receiver.waitFor(1)
      const advance = spawnRunning(['clock', 'advance', '2h', ...(jsonFlag ? ['--json'] : [])], server.env)
      // the server has the advance: it waits for the attempt out to the receiver that holds its answer
      await expect.poll(async () => (await json(['clock', 'show'])).advance, {timeout: 15_000}).not.toBeNull()
      expect(await advance.kill(signal)).toBe(exit)
      const said =
        'Stopped waiting. The advance goes on in the server all the same: `tablepay clock show` shows the clock; running this again would advance it a second time.'
      expect(advance.stderr().replace(/\s*\n[\s›]*/g, ' ')).toContain(said)
      // a script reading stdout learns why it got no clock
      expect(jsonFlag ? JSON.parse(advance.stdout()) : advance.stdout()).toEqual(
        jsonFlag ? {error: {code: 'interrupted', message: said}} : '',
      )
      release()
      await expect.poll(async () => (await json(['clock', 'show'])).advance, {timeout: 15_000}).toBeNull()
    },
  )

  it('a retry line says how far ahead the retry is on the scheduler clock', async () => {
    const {receiver, json, push, endpoint} = await setup(() => 500)
    await push('r2')
    await receiver.waitFor(1)
    await json(['clock', 'advance', '1h'])
    const [delivery] = (await json(['deliveries', 'list', '--endpoint', endpoint.id])).data
    // attempt 4 failed; attempt 5 is due 2h after attempt 4 was, whatever the wall clock says
    expect(delivery.attempts).toHaveLength(4)
    expect(renderAttemptLine(delivery, delivery.attempts[3])).toMatch(
      / → retry in 2h on the scheduler clock \(at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\)$/,
    )
  })
})

describe('clock advance progress', () => {
  it('names the endpoint it waits for and its receiver timeout', () => {
    const text = advanceProgress(
      {
        object: 'clock',
        now: '2026-11-22T12:00:00.000Z',
        offset_seconds: 60,
        time_scale: 1,
        advance: {
          to: '2026-11-23T12:00:00.000Z',
          receiver_timeout_ms: 10_000,
          attempts_out: 3,
          waiting_for: [{endpoint_id: 'we_hung', delivery_id: 'dlv_1', since: '2026-11-22T10:00:00.000Z'}],
        },
      },
      Date.parse('2026-11-22T10:00:04.500Z'),
    )
    expect(text).toMatch(
      /^Waiting for we_hung \(3 attempts out\): no answer for 4s of 10s; clock at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/,
    )
  })
})

describe('a serve killed during an advance', () => {
  let serve: CliServer | undefined
  afterEach(async () => {
    await serve?.kill('SIGKILL')
  })

  it("keeps the clock as far as the advance had moved it, so the retries it scheduled are not in the clock's future", async () => {
    // attempts 1 to 3 fail; attempt 4 (due 36m after the first) is held until the server dies
    const receiver = await startReceiver(({headers}) => (headers['x-tablepay-delivery-attempt'] === '4' ? 'hang' : 500))
    const dataDir = join(await makeTempDir(), 'data')
    const child = spawnServe(['--json', '--data', dataDir, '--seed', 'fixtures/seed.json', '--receiver-timeout', '60s'])
    const ready = JSON.parse((await child.waitForOutput('\n')).split('\n')[0]!)
    serve = {...child, url: ready.url, ready, env: {}}
    const base = ready.url.replace(/\/v1$/, '')
    await call(base, 'POST', '/v1/webhook-endpoints', {body: {url: receiver.url, event_types: ['check.created']}})
    await call(base, 'PUT', '/v1/checks/external/k1', {body: checkWith([['a', 1, 100]])})
    await receiver.waitFor(1)
    const advance = call(base, 'POST', '/v1/sim/clock/advance', {body: {seconds: 36 * 3600}}).catch(() => 'killed')
    await receiver.waitFor(4)
    expect(await serve.kill('SIGKILL')).toBeNull()
    serve = undefined
    expect(await advance).toBe('killed')

    const restarted = await startServer({port: 0, host: '127.0.0.1', dataDir})
    // the receiver closes first: the restarted server sends attempt 4 again, and waits for it when it closes
    cleanup.push(
      () => restarted.close(),
      () => receiver.close(),
    )
    const clock = (await call(restarted.url, 'GET', '/v1/sim/clock', {key: WRITE_KEY})).body
    const [delivery] = (await call(restarted.url, 'GET', '/v1/deliveries', {key: WRITE_KEY})).body.data
    const attempt4Due = Date.parse(delivery.attempts[2].scheduled_at) + 1800_000
    // the offset was saved before attempt 4 went out: the clock is at least where attempt 4 was due
    expect(Date.parse(clock.now)).toBeGreaterThanOrEqual(attempt4Due)
    expect(clock.offset_seconds).toBeGreaterThan(2000)
  })
})
