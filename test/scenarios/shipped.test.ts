import {readdirSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import {InvalidScenarioError, ScenarioFailedError} from '../../src/scenarios/errors.js'
import {simulatorControls, type SimulatorControls} from '../../src/simulator-controls.js'
import {TablepayClient} from '../../src/client/client.js'
import {validScenario} from '../../src/scenarios/files.js'
import {runScenario} from '../../src/scenarios/run.js'
import {checkWith} from '../helpers/checks.js'
import {ROOT} from '../helpers/cli.js'
import {importGraph} from '../helpers/import-graph.js'
import {startReceiver} from '../helpers/receiver.js'
import {OTHER_KEY, startTestServer, TEST_SEED, type TestServer, WRITE_KEY} from '../helpers/simulator.js'

// run on the memory store with its journal and on PostgreSQL (vitest.config.ts): one server for the file,
// every run's ${run} keeps its checks apart
let server: TestServer
let sim: SimulatorControls
beforeAll(async () => {
  server = await startTestServer()
  sim = simulatorControls(`${server.url}/v1`, server.server.accounts)
})
afterAll(() => server.close())

const SHIPPED = readdirSync(join(ROOT, 'fixtures', 'scenarios')).map((file) => file.replace(/\.json$/, ''))

describe('the shipped scenarios', () => {
  test('are the six the docs name', () => {
    expect(SHIPPED.sort()).toEqual([
      'claim-then-pos-void',
      'lost-answer',
      'pay-in-full-with-tip',
      'receiver-down-2h',
      'refund',
      'split-bill',
    ])
  })

  test.each(SHIPPED)('%s runs by name: every step holds', async (name) => {
    const report = await sim.runScenario(name)
    expect(report.steps.filter((step) => !step.ok)).toEqual([])
    expect(report).toMatchObject({scenario: name, ok: true, failed: 0, skipped: 0})
    expect(report.passed).toBe(report.steps.length)
  })
})

const OPEN = {
  id: 'open',
  push: {
    external_id: 'r-${run}',
    location_id: '${location}',
    table: {number: '2'},
    status: 'open',
    items: [{external_id: 'l1', name: 'Tea', quantity: 1, price_cents: 300}],
    totals: {subtotal_cents: 300, tax_cents: 0, total_cents: 300},
  },
}
const scenarioOf = (steps: unknown[]) => ({tablepay_scenario: 1, name: 'inline', steps})

describe('sim.runScenario', () => {
  test('takes the scenario as an object and resolves with the report, the answers referenced by later steps', async () => {
    const report = await sim.runScenario(
      scenarioOf([
        OPEN,
        {id: 'paid', pay: {check: '${open.id}', amount_cents: '${open.amount_due_cents}'}},
        {expect: {get: '/payments/${paid.id}', json: {amount_cents: 300, check_id: '${open.id}'}}},
      ]),
    )
    expect(report).toMatchObject({scenario: 'inline', ok: true, passed: 3})
  })

  test('saves a snapshot and restores it: the check pushed between is gone', async () => {
    const report = await sim.runScenario(
      scenarioOf([
        {id: 'saved', snapshot: 'scenario-base'},
        OPEN,
        {id: 'back', restore: 'scenario-base'},
        {expect: {get: '/checks/${open.id}', status: 404}},
        {expect: {get: '/sim/snapshots/${back.name}', json: {name: '${saved.name}'}}},
      ]),
    )
    expect(report).toMatchObject({ok: true, passed: 5})
    await expect(sim.runScenario(scenarioOf([{restore: 'scenario-missing'}]))).rejects.toThrow('scenario-missing')
  })

  test('a restore whose name is a reference to an object is a ✗ step saying why, not a crash', async () => {
    const steps = [{id: 'saved', snapshot: 'scenario-object-${run}'}, {restore: '${saved}'}]
    const error = await sim.runScenario(scenarioOf(steps)).catch((error: unknown) => error)
    expect(error).toBeInstanceOf(ScenarioFailedError)
    const [, restore] = (error as ScenarioFailedError).report.steps
    expect(restore).toMatchObject({ok: false, status: 422, error: expect.stringContaining('validation_failed')})
  })

  test("a request step sends a HEAD, and its status is expected as any step's", async () => {
    const steps = [OPEN, {request: {method: 'HEAD', path: '/checks/${open.id}'}, status: 200}]
    expect(await sim.runScenario(scenarioOf(steps))).toMatchObject({ok: true, passed: 2})
    const missing = [{request: {method: 'HEAD', path: '/checks/chk_missing'}, status: 404}]
    expect(await sim.runScenario(scenarioOf(missing))).toMatchObject({ok: true, passed: 1})
  })

  test('rejects with the report when an expectation fails, the ✗ step saying what differed', async () => {
    const error = await sim
      .runScenario(scenarioOf([OPEN, {expect: {get: '/checks/${open.id}', json: {status: 'closed'}}}]))
      .catch((error: unknown) => error)
    expect(error).toBeInstanceOf(ScenarioFailedError)
    const {report} = error as ScenarioFailedError
    expect(report).toMatchObject({ok: false, passed: 1, failed: 1})
    expect(report.steps[1]).toMatchObject({
      ok: false,
      differences: [{path: '.status', expected: 'closed', got: 'open'}],
    })
    expect((error as Error).message).toContain('step 2 expect GET /checks/')
    expect((error as Error).message).toContain('.status: expected "closed", got "open"')
  })

  test('status null expects no answer at all: a fault that resets the connection holds it, an answer fails it', async () => {
    const reset = {fault: {match: {method: 'PUT', path: '/v1/checks/external/r-${run}'}, reset: true, after: true}}
    const lost = await sim.runScenario(
      scenarioOf([reset, {...OPEN, status: null}, {expect: {get: '/checks/external/r-${run}', json: {version: null}}}]),
    )
    expect(lost.steps[1]).toMatchObject({ok: true, status: null})
    const error = await sim.runScenario(scenarioOf([{...OPEN, status: null}])).catch((error: unknown) => error)
    expect((error as ScenarioFailedError).report.steps[0]).toMatchObject({
      ok: false,
      status: 201,
      differences: [{path: 'status', expected: null, got: 201}],
    })
  })

  test('an expect that gets no answer says the status it expected', async () => {
    const reset = {fault: {match: {method: 'GET', path: '/v1/checks/*'}, reset: true}}
    try {
      const error = await sim
        .runScenario(scenarioOf([reset, {expect: {get: '/checks/chk_gone${run}', status: 404}}]))
        .catch((error: unknown) => error)
      expect((error as ScenarioFailedError).report.steps[1]).toMatchObject({
        ok: false,
        status: null,
        differences: [{path: 'status', expected: 404, got: null}],
      })
    } finally {
      await sim.faults.clear()
    }
  })

  test('an event stream is an answer, its status reported, that no step can read: it fails whatever the status expected', async () => {
    const stream = {request: {method: 'GET', path: '/sim/stream'}}
    const error = await sim
      .runScenario(scenarioOf([{expect: {get: '/sim/stream', status: 200}}, {...stream, status: null}]))
      .catch((error: unknown) => error)
    const why = expect.stringMatching(/^The server answered 200 with an event stream, which never ends/)
    expect((error as ScenarioFailedError).report.steps).toMatchObject([
      {ok: false, status: 200, differences: [], error: why},
      {ok: false, status: 200, differences: [{path: 'status', expected: null, got: 200}], error: why},
    ])
  })

  test("the run's own reads are no traffic of the user's: a fault on the events list spares its waits, the log leaves them out", async () => {
    const eventReads = async () => (await sim.requests({method: 'GET', path: '/v1/events'})).length
    const before = await eventReads()
    const everyEventsRead = {fault: {match: {method: 'GET', path: '/v1/events'}, status: 503}}
    const created = {expect_event: {type: 'check.created', json: {data: {external_id: 'r-${run}'}}}}
    try {
      const report = await sim.runScenario(scenarioOf([everyEventsRead, OPEN, created]))
      expect(report.steps.map((step) => step.ok)).toEqual([true, true, true])
      expect(await eventReads()).toBe(before)
    } finally {
      await sim.faults.clear()
    }
  })

  test('an event expectation whose reads the server fails is a failed step, saying why, and the run goes on', async () => {
    // the server fails the run's reads of the events list (its baseline, limit=1, aside), and answers the rest
    const failing = (input: string, init: RequestInit) =>
      /\/v1\/events\?limit=100\b/.test(input)
        ? Promise.resolve(
            Response.json({error: {code: 'internal_error', message: 'The events list failed.'}}, {status: 500}),
          )
        : fetch(input, init)
    const client = new TablepayClient({url: `${server.url}/v1`, apiKey: WRITE_KEY, fetch: failing})
    const report = await runScenario(
      client,
      validScenario(
        scenarioOf([OPEN, {expect_event: {type: 'check.created'}}, {expect: {get: '/checks/${open.id}'}}]),
        'The scenario given',
      ),
    )
    expect(report.steps.map((step) => [step.ok, step.error])).toEqual([
      [true, undefined],
      [false, 'The events list failed.'],
      [true, undefined],
    ])
  })

  test('an event expectation finds any event of the run, however many came after it (past 1,000)', async () => {
    const tag = `many-${Date.now()}`
    const pushOthers = async () => {
      // 1,100 events after the run's first: 11 pages of the events list
      for (let batch = 0; batch < 22; batch++) {
        const pushes = Array.from({length: 50}, (_, i) =>
          server.api('PUT', `/v1/checks/external/${tag}-${batch}-${i}`, {body: checkWith([['a', 1, 100]])}),
        )
        for (const {status} of await Promise.all(pushes)) expect(status).toBe(201)
      }
      await server.api('PUT', `/v1/checks/external/${tag}-last`, {body: checkWith([['a', 1, 100]])})
    }
    let others: Promise<void> | undefined
    const report = await runScenario(
      new TablepayClient({url: `${server.url}/v1`, apiKey: WRITE_KEY}),
      validScenario(
        scenarioOf([
          OPEN,
          {expect_event: {type: 'check.created', json: {data: {external_id: `${tag}-last`}}, within: '60s'}},
          {expect_event: {type: 'check.created', json: {data: {external_id: 'r-${run}'}}}},
        ]),
        'The scenario given',
      ),
      {onStep: (step) => (others ??= step.step === 1 ? pushOthers() : undefined)},
    )
    await others
    expect(report.steps.map((step) => [step.ok, step.error])).toEqual([
      [true, undefined],
      [true, undefined],
      [true, undefined],
    ])
  })

  test('rejects an invalid scenario naming the step and field, with nothing changed on the server', async () => {
    const before = await server.stored()
    const error = await sim
      .runScenario(scenarioOf([OPEN, {id: 'c1', claim: {check: '${ghost.id}', items: []}}, {tango: {}}]))
      .catch((error: unknown) => error)
    expect(error).toBeInstanceOf(InvalidScenarioError)
    expect((error as InvalidScenarioError).problems).toEqual([
      {step: 2, id: 'c1', path: '.steps[1].claim.check', message: expect.stringContaining('${ghost.id}')},
      {step: 3, path: '.steps[2].tango', message: expect.stringContaining('unknown step kind "tango"')},
    ])
    expect(await server.stored()).toBe(before)
  })

  test('rejects a scenario holding a value JSON cannot hold, with nothing sent', async () => {
    const before = await server.stored()
    const bigint = scenarioOf([OPEN, {expect: {get: '/checks', json: {data: [{id: 1n}]}}}])
    const error = await sim.runScenario(bigint).catch((error: unknown) => error)
    expect(error).toBeInstanceOf(InvalidScenarioError)
    expect((error as Error).message).toMatch(/^The scenario given is no JSON value: .*BigInt/)
    expect((error as InvalidScenarioError).problems).toEqual([{path: '.', message: expect.stringContaining('BigInt')}])
    expect(await server.stored()).toBe(before)
  })
})

test('a run stopped before its first step sends nothing more: every step skipped, the run interrupted', async () => {
  const client = new TablepayClient({url: `${server.url}/v1`, apiKey: WRITE_KEY})
  const scenario = validScenario(scenarioOf([OPEN, {expect: {get: '/checks/${open.id}'}}]), 'The scenario given')
  const report = await runScenario(client, scenario, {signal: AbortSignal.abort()})
  expect(report).toMatchObject({ok: false, interrupted: true, passed: 0, failed: 0, skipped: 2})
  expect(report.steps.map((step) => step.error)).toEqual(['the run was interrupted', 'the run was interrupted'])
  const paths = (await server.api('GET', '/v1/sim/requests?limit=100')).body.data.map((r: {path: string}) => r.path)
  expect(paths.filter((path: string) => path.includes(`r-${report.run}`))).toEqual([])
})

test('${location} is the account’s first location, the oldest of two', async () => {
  const [first, second] = TEST_SEED.accounts[1]!.locations!
  const other = new TablepayClient({url: `${server.url}/v1`, apiKey: OTHER_KEY})
  expect((await other.listLocations()).data.map((l) => l.id)).toEqual([second!.id, first!.id])
  const expected = {expect: {get: '/checks/${open.id}', json: {location_id: first!.id}}}
  const report = await runScenario(other, validScenario(scenarioOf([OPEN, expected]), 'The scenario given'))
  expect(report.steps.filter((step) => !step.ok)).toEqual([])
})

test('${location} after a restore is the first location of the account as restored', async () => {
  // a scratch account's snapshot, imported into another one: restored there, it brings locations of other ids
  const scratch = async () => (await server.api('POST', '/v1/sim/accounts')).body
  const [mine, theirs] = [await scratch(), await scratch()]
  const key = (account: {api_keys: {key: string}[]}) => account.api_keys[0]!.key
  expect((await server.api('POST', '/v1/sim/snapshots', {key: key(theirs), body: {name: 'theirs'}})).status).toBe(201)
  const exported = await server.api('GET', '/v1/sim/snapshots/theirs/export', {key: key(theirs)})
  expect((await server.api('DELETE', `/v1/sim/accounts/${theirs.id}`)).status).toBe(200)
  expect((await server.api('POST', '/v1/sim/snapshots/import', {key: key(mine), body: exported.body})).status).toBe(201)
  const first = (theirs.locations as {id: string}[]).at(-1)!.id
  expect(mine.locations.map((l: {id: string}) => l.id)).not.toContain(first)

  const client = new TablepayClient({url: `${server.url}/v1`, apiKey: key(mine)})
  const steps = [{restore: 'theirs'}, OPEN, {expect: {get: '/checks/${open.id}', json: {location_id: first}}}]
  const report = await runScenario(client, validScenario(scenarioOf(steps), 'The scenario given'))
  expect(report.steps.filter((step) => !step.ok)).toEqual([])
})

describe('what a run made for itself', () => {
  const endpoints = async () =>
    (await server.api('GET', '/v1/webhook-endpoints?limit=100')).body.data as {id: string; url: string}[]

  test('a restore that removed the forwardTo endpoint: the report comes back, the endpoint is gone', async () => {
    const receiver = await startReceiver()
    try {
      await sim.snapshots.save('before-forward')
      const report = await sim.runScenario(scenarioOf([{restore: 'before-forward'}]), {forwardTo: receiver.url})
      expect(report).toMatchObject({ok: true, forwarded_to: {url: receiver.url}})
      expect(report.left_behind).toBeUndefined()
      expect((await endpoints()).map((e) => e.url)).not.toContain(receiver.url)
    } finally {
      await receiver.close()
    }
  })

  test('an endpoint it cannot remove is reported as left behind, in the report', async () => {
    const receiver = await startReceiver()
    try {
      const refuse = {fault: {match: {method: 'DELETE', path: '/v1/webhook-endpoints/*'}, status: 500}}
      const report = await sim.runScenario(scenarioOf([refuse]), {forwardTo: receiver.url})
      const id = report.forwarded_to!.endpoint_id
      expect(report).toMatchObject({ok: true, left_behind: [{endpoint_id: id, url: receiver.url}]})
      expect(report.left_behind![0]!.error).toMatch(/^simulated_fault: /)
      expect((await endpoints()).map((e) => e.id)).toContain(id)
      await sim.faults.clear()
      expect((await server.api('DELETE', `/v1/webhook-endpoints/${id}`)).status).toBe(200)
    } finally {
      await sim.faults.clear()
      await receiver.close()
    }
  })

  /**
   * A run of `steps` on a server of one request a second, on a clock that stands still until a request is
   * refused (then a second on): the first step's request takes the one token. Resolves with the report and the
   * endpoints left after it, read as the simulator's own clients read, which the rate limit spares.
   */
  async function runRateLimited(steps: unknown[]) {
    let now = 0
    const limited = await startTestServer({serve: {rateLimit: 1, rateLimitClock: () => now}})
    try {
      const refusedMovesClock = async (input: string, init: RequestInit) => {
        const response = await fetch(input, init)
        if (response.status === 429) now += 1000
        return response
      }
      const client = new TablepayClient({url: `${limited.url}/v1`, apiKey: WRITE_KEY, fetch: refusedMovesClock})
      const report = await runScenario(client, validScenario(scenarioOf(steps), 'The scenario given'))
      const listed = await limited.api('GET', '/v1/webhook-endpoints', {headers: {'x-tablepay-client': 'cli-tail'}})
      return {report, left: listed.body.data}
    } finally {
      await limited.close()
    }
  }

  test('a delete the rate limit refuses is sent again after its Retry-After: the endpoint is not left behind', async () => {
    const {report, left} = await runRateLimited([{webhook_endpoint: {url: '${receiver}'}}])
    expect(report).toMatchObject({ok: true, passed: 1})
    expect(report.left_behind).toBeUndefined()
    expect(left).toEqual([])
  })

  test("a restore's look for the endpoints it put back waits out the rate limit, and the cleanup removes them", async () => {
    const made = [{webhook_endpoint: {url: '${receiver}'}}, {snapshot: 'limited'}, {restore: 'limited'}]
    const {report, left} = await runRateLimited(made)
    expect(report.steps.map((step) => [step.ok, step.error])).toEqual([
      [true, undefined],
      [true, undefined],
      [true, undefined],
    ])
    expect(report.left_behind).toBeUndefined()
    expect(left).toEqual([])
  })

  test('a restore whose look for the endpoints it put back the server fails is a failed step, and the run reports', async () => {
    const lookFails = {fault: {match: {method: 'GET', path: '/v1/webhook-endpoints'}, status: 503}}
    try {
      const error = await sim
        .runScenario(
          scenarioOf([
            {webhook_endpoint: {url: '${receiver}'}},
            {snapshot: 'unlisted'},
            lookFails,
            {restore: 'unlisted'},
          ]),
        )
        .catch((error: unknown) => error)
      expect(error).toBeInstanceOf(ScenarioFailedError)
      const {report} = error as ScenarioFailedError
      expect(report).toMatchObject({passed: 3, failed: 1})
      expect(report.steps[3]).toMatchObject({ok: false, status: 200})
      expect(report.steps[3]!.error).toMatch(/^Restored, but the run could not read the account after it/)
      // the run made that endpoint, so its cleanup knew it all the same
      expect(report.left_behind).toBeUndefined()
    } finally {
      await sim.faults.clear()
    }
  })

  test('the endpoints steps made on ${receiver} go with it, also when a failed action skips the DELETE', async () => {
    const error = await sim
      .runScenario(
        scenarioOf([
          {id: 'hook', webhook_endpoint: {url: '${receiver}/503', description: 'stray-${run}'}},
          {claim: {check: 'chk_missing', items: []}},
          {request: {method: 'DELETE', path: '/webhook-endpoints/${hook.id}'}},
        ]),
      )
      .catch((error: unknown) => error)
    const {report} = error as ScenarioFailedError
    expect(report).toMatchObject({passed: 1, failed: 1, skipped: 1})
    expect(report.left_behind).toBeUndefined()
    const descriptions = (await endpoints()).map((e) => (e as {description?: string}).description)
    expect(descriptions).not.toContain(`stray-${report.run}`)
  })

  /**
   * Runs a fault answering POST /v1/webhook-endpoints `delayMs` after it made the endpoint, then a step making one
   * on ${receiver} at `path`; stops the run once the endpoint is there, and resolves with the report and what is
   * left on that path after it.
   */
  async function stoppedOnceMade(path: string, delayMs: number) {
    const held = {fault: {match: {method: 'POST', path: '/v1/webhook-endpoints'}, delay_ms: delayMs, after: true}}
    const make = {webhook_endpoint: {url: `\${receiver}${path}`}}
    const client = new TablepayClient({url: `${server.url}/v1`, apiKey: WRITE_KEY})
    const stop = new AbortController()
    try {
      const running = runScenario(client, validScenario(scenarioOf([held, make]), 'The scenario given'), {
        signal: stop.signal,
      })
      const made = async () => (await endpoints()).find((e) => e.url.endsWith(path))
      while (!(await made()));
      stop.abort()
      return {report: await running, left: await made()}
    } finally {
      await sim.faults.clear()
    }
  }

  test('a run stopped while a step makes an endpoint on ${receiver} waits a moment for its answer, then removes it', async () => {
    const {report, left} = await stoppedOnceMade('/held', 800)
    // the step answered in that moment: its report is what it came to
    expect(report).toMatchObject({interrupted: true, passed: 2, failed: 0})
    expect([report.left_behind, left]).toEqual([undefined, undefined])
  })

  test('a run stopped while a step makes an endpoint on ${receiver} whose answer comes too late finds it, and removes it', async () => {
    // its answer comes long after the moment the run gives it
    const {report, left} = await stoppedOnceMade('/late', 4000)
    expect(report.steps[1]).toMatchObject({ok: false, error: 'interrupted while under way'})
    expect([report.left_behind, left]).toEqual([undefined, undefined])
  })

  test('a run stopped while neither a step nor its look for endpoints is answered says an endpoint may be left', async () => {
    // the step's request and the run's list of endpoints are both answered long after the run is stopped
    const late = {fault: {match: {path: '/v1/webhook-endpoints'}, delay_ms: 5000, after: true, times: 2}}
    const make = {webhook_endpoint: {url: '${receiver}/unseen', description: 'unseen-${run}'}}
    const client = new TablepayClient({url: `${server.url}/v1`, apiKey: WRITE_KEY})
    const stop = new AbortController()
    try {
      const running = runScenario(client, validScenario(scenarioOf([late, make]), 'The scenario given'), {
        signal: stop.signal,
        onStep: (step) => step.step === 1 && setImmediate(() => stop.abort()),
      })
      const report = await running
      expect(report.steps[1]!.error).toMatch(
        /^interrupted while under way: .* may be left \(`tablepay webhooks list`\)$/,
      )
    } finally {
      await sim.faults.clear()
      for (const endpoint of await endpoints())
        if (endpoint.url.endsWith('/unseen')) await server.api('DELETE', `/v1/webhook-endpoints/${endpoint.id}`)
    }
  })

  test('a run stopped while a step gets no answer ends all the same, that step reported as interrupted', async () => {
    // the answer of the step's request comes long after the run is stopped
    const slow = {fault: {match: {method: 'GET', path: '/v1/checks/*'}, delay_ms: 4000}}
    const client = new TablepayClient({url: `${server.url}/v1`, apiKey: WRITE_KEY})
    const stop = new AbortController()
    const marker = `chk_slow${Date.now()}`
    try {
      const steps = [slow, {request: {method: 'GET', path: `/checks/${marker}`}}]
      const running = runScenario(client, validScenario(scenarioOf(steps), 'The scenario given'), {
        signal: stop.signal,
        onStep: (step) => step.step === 1 && setImmediate(() => stop.abort()),
      })
      const report = await running
      expect(report).toMatchObject({interrupted: true, passed: 1, failed: 1})
      expect(report.steps[1]).toMatchObject({ok: false, error: 'interrupted while under way'})
      // the run ended before the request was answered: the log has it once it is
      const logged = (await server.api('GET', '/v1/sim/requests?limit=100')).body.data as {path: string}[]
      expect(logged.filter((entry) => entry.path.includes(marker))).toEqual([])
    } finally {
      await sim.faults.clear()
    }
  })

  test('an endpoint a request step made on ${receiver}, or moved there, goes with it too', async () => {
    const report = await sim.runScenario(
      scenarioOf([
        {
          request: {
            method: 'POST',
            path: '/webhook-endpoints',
            body: {url: '${receiver}/made', description: 'made-${run}'},
          },
        },
        {id: 'elsewhere', request: {method: 'POST', path: '/webhook-endpoints', body: {url: 'http://127.0.0.1:9/x'}}},
        {request: {method: 'PATCH', path: '/webhook-endpoints/${elsewhere.id}', body: {url: '${receiver}/moved'}}},
      ]),
    )
    expect(report.left_behind).toBeUndefined()
    const left = (await endpoints()).map((e) => (e as {url: string}).url)
    expect(left.filter((url) => url.endsWith('/made') || url.endsWith('/moved'))).toEqual([])
  })
})

test.each(['dist/testing.js', 'dist/msw.js'])('%s loads the scenario run only when a test runs one', (entry) => {
  const {files} = importGraph(entry)
  expect(files).toContain('simulator-controls.js')
  expect(files.filter((file) => /^scenarios\/(?!errors\.js$)|^domain\/scenario/.test(file))).toEqual([])
})
