import {spawn} from 'node:child_process'
import {existsSync, readdirSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import {ROOT} from '../helpers/cli.js'
import {checkWith} from '../helpers/checks.js'
import {startReceiver} from '../helpers/receiver.js'
import {OTHER_KEY, TEST_SEED} from '../helpers/simulator.js'

// the public entry points, resolved through package.json "exports" as a user's import would be
const {startSimulator} = await import('tablepay/testing')
const {TablepayApiError, TablepayClient} = await import('tablepay/client')
type Simulator = Awaited<ReturnType<typeof startSimulator>>
type ScenarioReport = Awaited<ReturnType<Simulator['runScenario']>>

describe('startSimulator', () => {
  let sim: Simulator
  let client: InstanceType<typeof TablepayClient>

  beforeAll(async () => {
    sim = await startSimulator({seed: TEST_SEED})
    client = new TablepayClient({url: sim.url, apiKey: sim.apiKey})
  })
  afterAll(() => sim.close())

  test("serves the real API on a free loopback port, with the seed's write and read keys", async () => {
    expect(sim.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/)
    expect(sim.url).not.toBe('http://127.0.0.1:4747/v1')
    expect([sim.apiKey, sim.readKey]).toEqual(['tp_test_demo_write', 'tp_test_demo_read'])
    const {status, result} = await client.pushCheck('testing-1', checkWith([['l1', 1, 900]], {location_id: 'loc_main'}))
    expect([status, result]).toEqual([201, 'created'])
    const reader = new TablepayClient({url: sim.url, apiKey: sim.readKey!})
    expect((await reader.getCheckByExternalId('testing-1')).totals.subtotal_cents).toBe(900)
    const refused = await reader.pushCheck('testing-2', checkWith([])).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(TablepayApiError)
    expect(refused).toMatchObject({status: 403, code: 'insufficient_scope'})
  })

  test('runScenario() runs a shipped scenario by name, its ${receiver} acknowledging the deliveries', async () => {
    const report = await sim.runScenario('receiver-down-2h')
    expect(report).toMatchObject({scenario: 'receiver-down-2h', ok: true, failed: 0, skipped: 0})
  })

  test('runScenario(): after a restore, expect_event waits for an event made since, not one the snapshot holds', async () => {
    const push = checkWith([['l1', 1, 100]], {location_id: '${location}'})
    const failed = await sim
      .runScenario({
        tablepay_scenario: 1,
        name: 'restored-events',
        steps: [
          {push: {...push, external_id: 'restored-${run}'}},
          {snapshot: 'restored-${run}'},
          {restore: 'restored-${run}'},
          {expect_event: {type: 'check.created', within: '200ms'}},
          // one made after the restore is the run's
          {push: {...push, external_id: 'after-${run}'}},
          {expect_event: {type: 'check.created', json: {data: {external_id: 'after-${run}'}}}},
        ],
      })
      .catch((error: {report: ScenarioReport}) => error)
    const {report} = failed as {report: ScenarioReport}
    await client.request('DELETE', `/sim/snapshots/restored-${report.run}`)
    expect(report).toMatchObject({ok: false, passed: 5, failed: 1})
    expect(report.steps[3]).toMatchObject({ok: false, title: 'expect_event check.created within 200ms'})
  })

  test("runScenario(): a request restoring another account's snapshot leaves the run's events as they were", async () => {
    const push = checkWith([['l1', 1, 100]], {location_id: '${location}'})
    const other = {authorization: `Bearer ${OTHER_KEY}`}
    const report = await sim.runScenario({
      tablepay_scenario: 1,
      name: 'other-restore',
      steps: [
        {push: {...push, external_id: 'mine-${run}'}},
        {request: {method: 'POST', path: '/sim/snapshots', body: {name: 'theirs-${run}'}, headers: other}},
        {request: {method: 'POST', path: '/sim/snapshots/theirs-${run}/restore', headers: other}},
        {expect_event: {type: 'check.created', json: {data: {external_id: 'mine-${run}'}}}},
      ],
    })
    await new TablepayClient({url: sim.url, apiKey: OTHER_KEY}).request('DELETE', `/sim/snapshots/theirs-${report.run}`)
    expect(report).toMatchObject({ok: true, passed: 4})
  })

  test('requests() returns the request log; faults.add() makes the next push fail and clear() removes faults', async () => {
    await sim.faults.add({status: 429, retry_after_s: 2, match: {method: 'PUT'}})
    const limited = await client.pushCheck('testing-fault', checkWith([], {location_id: 'loc_main'})).catch((e) => e)
    expect(limited).toMatchObject({status: 429, code: 'rate_limited'})
    const [logged] = await sim.requests({method: 'PUT', limit: 1})
    expect(logged).toMatchObject({path: '/v1/checks/external/testing-fault', status: 429, fault_id: expect.any(String)})
    await sim.faults.add({status: 500, times: null})
    await sim.faults.clear()
    expect(await sim.faults.list()).toEqual([])
    expect((await client.pushCheck('testing-fault', checkWith([], {location_id: 'loc_main'}))).status).toBe(201)
  })

  test("reset() deletes the account's checks and events", async () => {
    await client.pushCheck('testing-reset', checkWith([['l1', 1, 100]], {location_id: 'loc_main'}))
    await sim.reset()
    expect((await client.listChecks()).data).toEqual([])
    expect((await client.listEvents()).data).toEqual([])
  })

  test('clock.advance(seconds) runs the retry that falls due, at once', async () => {
    let answers = 0
    const receiver = await startReceiver(() => (++answers === 1 ? 500 : 200))
    try {
      const endpoint = await client.createWebhookEndpoint({url: receiver.url, event_types: ['check.created']})
      receiver.verifyWith(endpoint.secret)
      await client.pushCheck('testing-clock', checkWith([['l1', 1, 100]], {location_id: 'loc_main'}))
      await receiver.waitFor(1)
      const advanced = await sim.clock.advance(60)
      expect(advanced.attempts).toBe(1)
      expect(receiver.received).toHaveLength(2)
      const [delivery] = (await client.listDeliveries({endpoint_id: endpoint.id})).data
      expect(delivery!.status).toBe('succeeded')
      expect(delivery!.attempts.map((a) => a.status_code)).toEqual([500, 200])
    } finally {
      await receiver.close()
    }
  })

  test('clock.reset() puts the scheduler clock back on real time', async () => {
    // the clock reads 2 hours past when the advance began; its offset is that less the real time it took
    const began = Date.now()
    await sim.clock.advance(7200)
    expect(Date.parse((await client.getClock()).now)).toBeGreaterThanOrEqual(began + 7200_000)
    const reset = await sim.clock.reset()
    expect(reset.offset_seconds).toBe(0)
    expect((await client.getClock()).offset_seconds).toBe(0)
  })
})

test('startSimulator takes a seed file, and without one seeds acct_demo with fresh keys', async () => {
  const fromFile = await startSimulator({seed: 'fixtures/seed.json'})
  const fresh = await startSimulator()
  try {
    expect(fromFile.apiKey).toBe('tp_test_demo_write')
    expect(fresh.accounts.map((a) => a.id)).toEqual(['acct_demo'])
    expect(fresh.apiKey).toMatch(/^tp_test_/)
    expect(fresh.apiKey).not.toBe(fromFile.apiKey)
    const locations = await new TablepayClient({url: fresh.url, apiKey: fresh.apiKey}).listLocations()
    expect(locations.data.map((l) => l.id).sort()).toEqual(['loc_main', 'loc_terrace'])
  } finally {
    await Promise.all([fromFile.close(), fresh.close()])
  }
})

test('memory: false journals to a temp data dir, which close() removes', async () => {
  const sim = await startSimulator({memory: false, seed: TEST_SEED})
  const dir = sim.dataDir!
  await new TablepayClient({url: sim.url, apiKey: sim.apiKey}).pushCheck(
    'on-disk',
    checkWith([], {location_id: 'loc_main'}),
  )
  expect(readdirSync(dir).some((name) => name.startsWith('journal.'))).toBe(true)
  await sim.close()
  expect(existsSync(dir)).toBe(false)
})

test('a control called after close() says the simulator was closed, not that no server answers', async () => {
  const sim = await startSimulator({seed: TEST_SEED})
  await sim.close()
  for (const call of [() => sim.clock.advance(5), () => sim.faults.list(), () => sim.runScenario('split-bill')])
    await expect(call()).rejects.toThrow('this simulator was closed (close())')
  expect(sim.apiKey).toBe(TEST_SEED.accounts[0]!.api_keys[0]!.key)
})

test('an invalid seed is refused with its first problem named', async () => {
  await expect(startSimulator({seed: {accounts: []}})).rejects.toThrow(
    /seed: the seed option is not a valid seed: accounts/,
  )
})

test('a database URL that is not PostgreSQL is refused naming the option, never the URL, before any connection', async () => {
  const refusal = startSimulator({database: 'mysql://root:hunter2@db.invalid/x'})
  await expect(refusal).rejects.toThrow('startSimulator: database: give a postgres:// URL')
  await expect(refusal).rejects.not.toThrow('hunter2')
})

test("node's test runner runs the example that uses tablepay/testing", async () => {
  // TAP, which Node 24 and later do not print by default where stdout is no terminal
  const args = ['--test', '--test-reporter=tap', join('examples', 'node-test', 'simulator.test.mjs')]
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: {...process.env, NO_COLOR: '1'},
  })
  let stdout = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk))
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
  expect(stdout).toMatch(/^# pass 2$/m)
  expect(stdout).toMatch(/^# fail 0$/m)
  expect(code).toBe(0)
})
