import {mkdir, mkdtemp, readdir, readFile, rm, writeFile} from 'node:fs/promises'
import {createServer, type Socket} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type ApiServer, startApiServer} from '../helpers/api-server.js'
import {ROOT, runCommand, spawnRunning, startCommand} from '../helpers/cli.js'
import {startReceiver} from '../helpers/receiver.js'
import {call} from '../helpers/simulator.js'
import {stderrAsTerminal} from '../helpers/terminal.js'

let server: ApiServer
let dir: string
beforeAll(async () => {
  ;[server, dir] = await Promise.all([startApiServer(), mkdtemp(join(tmpdir(), 'tablepay-scenario-'))])
})
afterAll(async () => {
  await server.stop()
  await rm(dir, {recursive: true, force: true})
})

const scenario = (args: string[]) => runCommand(['scenario', ...args], {env: server.env})
const api = (method: string, path: string, body?: unknown) =>
  // not logged: what the test reads leaves the request log to the command's requests
  call(server.url.replace(/\/v1$/, ''), method, `/v1${path}`, {body, headers: {'x-tablepay-client': 'cli-tail'}})

/** A scenario file in the test's dir, named after `name`. */
async function file(name: string, steps: unknown[]): Promise<string> {
  const path = join(dir, `${name}.json`)
  await writeFile(path, JSON.stringify({tablepay_scenario: 1, name, steps}))
  return path
}

const OPEN = {
  id: 'open',
  push: {
    external_id: 't1-${run}',
    location_id: '${location}',
    version: 1,
    table: {number: '1'},
    status: 'open',
    items: [{external_id: 'l1', name: 'Soup', quantity: 1, price_cents: 900}],
    totals: {subtotal_cents: 900, tax_cents: 0, total_cents: 900},
  },
}

/** A step whose fault holds every endpoint delete 10 s: longer than the 2 s a stopped run gives its cleanup. */
const HELD_DELETE = {fault: {match: {method: 'DELETE', path: '/v1/webhook-endpoints/*'}, delay_ms: 10_000}}

const requestCount = async () => (await api('GET', '/sim/requests?limit=100')).body.data.length as number
const endpointUrls = async () =>
  (await api('GET', '/webhook-endpoints?limit=100')).body.data.map((e: {url: string}) => e.url) as string[]

describe('scenario run', () => {
  it('runs a shipped scenario by name: one ✓ line per step, a summary, exit 0', async () => {
    const {code, stdout} = await scenario(['run', 'split-bill'])
    expect(code).toBe(0)
    expect(stdout).toMatch(/^✓ 1 \(open\) push PUT \/checks\/external\/t7-[0-9a-f]{8} → 201$/m)
    expect(stdout).toMatch(/^✓ 8 expect_event check\.fully_paid within 5s$/m)
    expect(stdout).toMatch(/^split-bill \(run [0-9a-f]{8}\): 8 steps, 8 passed, 0 failed\.$/m)
  })

  it('runs a scenario piped on stdin for -', async () => {
    const input = await readFile(join(ROOT, 'fixtures', 'scenarios', 'split-bill.json'), 'utf8')
    const {code, stdout} = await runCommand(['scenario', 'run', '-'], {env: server.env, input})
    expect(code).toBe(0)
    expect(stdout).toMatch(/^split-bill \(run [0-9a-f]{8}\): 8 steps, 8 passed, 0 failed\.$/m)
  })

  it('a failed expectation is a ✗ with expected vs got, the run goes on, exit 1', async () => {
    const path = await file('wrong', [
      OPEN,
      {expect: {get: '/checks/${open.id}', status: 200, json: {status: 'closed', amount_due_cents: 900}}},
      {expect: {get: '/checks/${open.id}', json: {status: 'open'}}},
    ])
    const {code, stdout, stderr} = await scenario(['run', path])
    expect(code).toBe(1)
    expect(stdout).toMatch(/^✗ 2 expect GET \/checks\/chk_\w+ → 200\n {4}\.status: expected "closed", got "open"$/m)
    expect(stdout).toMatch(/^✓ 3 expect GET/m)
    expect(stdout).toContain('3 steps, 2 passed, 1 failed.')
    expect(stderr).toContain('Scenario wrong: 1 of 3 steps did not hold.')
    expect(stderr).toContain('Code: scenario_failed')
  })

  it('a path a reference sends to another route (a .. segment) fails its step, the request not sent', async () => {
    const dots = {...OPEN, push: {...OPEN.push, table: {number: '..'}}}
    const path = await file('dots', [dots, {expect: {get: '/checks/${open.table.number}/openapi.json', status: 200}}])
    const {code, stdout} = await scenario(['run', path, '--json'])
    expect(code).toBe(1)
    expect(JSON.parse(stdout).steps[1]).toMatchObject({
      ok: false,
      title: 'expect GET /checks/../openapi.json',
      error: expect.stringContaining('has a . or .. segment, which would send it to another route'),
    })
  })

  it('a header a reference fills with text no request can send fails its step, the request not sent', async () => {
    const euro = {...OPEN, push: {...OPEN.push, items: [{...OPEN.push.items[0], name: 'Soup €5'}]}}
    const path = await file('euro', [
      euro,
      {request: {method: 'GET', path: '/checks/${open.id}', headers: {'X-Note': '${open.items.0.name}'}}, status: null},
    ])
    const {code, stdout} = await scenario(['run', path, '--json'])
    expect(code).toBe(1)
    const failed = JSON.parse(stdout).steps[1]
    expect(failed).toMatchObject({
      ok: false,
      title: expect.stringMatching(/^request GET \/checks\/chk_\w+$/),
      error: expect.stringContaining('Its X-Note header holds a line break, a control character or one past U+00FF'),
    })
    const logged = (await api('GET', '/sim/requests?limit=100')).body.data.map((r: {path: string}) => r.path)
    expect(logged).not.toContain(`/v1${failed.title.split(' ')[2]}`)
  })

  it('an id no URL can carry fails its step, saying which: the run ends with its report', async () => {
    const lone = {...OPEN, push: {...OPEN.push, external_id: 'x\ud800'}}
    const {code, stdout} = await scenario(['run', await file('lone', [lone]), '--json'])
    expect(code).toBe(1)
    expect(JSON.parse(stdout).steps[0]).toMatchObject({
      ok: false,
      error: expect.stringContaining(
        'external_check_id "x\\ud800" holds an unpaired surrogate, which no URL can carry',
      ),
    })
  })

  it('"status": null holds for no answer only: an event stream is an answer, its 200 shown, and fails the step', async () => {
    const path = await file('stream', [{request: {method: 'GET', path: '/sim/stream'}, status: null}])
    const {code, stdout} = await scenario(['run', path])
    expect(code).toBe(1)
    expect(stdout).toMatch(
      /^✗ 1 request GET \/sim\/stream → 200\n {4}status: expected null, got 200; The server answered 200 with an event stream, which never ends: a step cannot read one/m,
    )
  })

  it('an action answered otherwise than expected ends the run: the steps after it are skipped', async () => {
    const path = await file('refused', [
      OPEN,
      {claim: {check: '${open.id}', items: [{external_id: 'nope', quantity: 1}]}},
      {expect: {get: '/checks/${open.id}'}},
    ])
    const {code, stdout, stderr} = await scenario(['run', path])
    expect(code).toBe(1)
    expect(stdout).toMatch(/^✗ 2 claim POST .* → 422\n {4}status: expected "2xx", got 422; validation_failed: /m)
    expect(stdout).toMatch(/^- 3 expect: skipped, a step before it failed$/m)
    // the one that failed, not the one skipped
    expect(stderr).toContain('Scenario refused: 1 of 3 steps did not hold (1 skipped).')
  })

  it("a refusal of several problems lists each in the step's line and report, where the message quotes the first", async () => {
    const path = await file('problems', [{push: {external_id: 'p-${run}', version: 0, status: 'weird'}}])
    const listed =
      'Details: version: Too small: expected number to be >=1; table: Required: expected object; ' +
      'status: Invalid option: expected one of "open"|"closed"|"voided"; items: Required: expected array; ' +
      'totals: Required: expected object.'
    const {code, stdout} = await scenario(['run', path])
    expect(code).toBe(1)
    expect(stdout).toContain(`(and 4 more, see details). ${listed}\n`)
    const report = await scenario(['run', path, '--json'])
    const {error} = JSON.parse(report.stdout).steps[0]
    expect(error).toMatch(/^validation_failed: Request body failed validation: version: /)
    expect(error.endsWith(` ${listed}`)).toBe(true)
  })

  it('an event expectation not met is a failed step: the run, its report and its cleanup go on', async () => {
    const path = await file('unmet', [
      {id: 'hook', webhook_endpoint: {url: '${receiver}', event_types: ['check.created']}},
      {expect_event: {type: 'feedback.received', within: '1s'}},
      {expect: {get: '/webhook-endpoints/${hook.id}'}},
    ])
    const before = await endpointUrls()
    const {code, stdout} = await scenario(['run', path, '--json'])
    expect(code).toBe(1)
    const report = JSON.parse(stdout)
    expect(report).toMatchObject({passed: 2, failed: 1, skipped: 0})
    expect(report.steps[1]).toMatchObject({ok: false, error: 'no feedback.received event in this run'})
    // the endpoint made on the run's receiver is gone with it
    expect(report).not.toHaveProperty('left_behind')
    expect(await endpointUrls()).toEqual(before)
  })

  it('--json prints one report object, with what differed, whichever the outcome', async () => {
    const path = await file('report', [OPEN, {expect: {get: '/checks/${open.id}', status: 404}}])
    const {code, stdout} = await scenario(['run', path, '--json'])
    expect(code).toBe(1)
    const report = JSON.parse(stdout)
    expect(report).toMatchObject({scenario: 'report', ok: false, passed: 1, failed: 1, skipped: 0})
    expect(report.run).toMatch(/^[0-9a-f]{8}$/)
    expect(report.steps[0]).toMatchObject({step: 1, id: 'open', kind: 'push', ok: true, status: 201})
    expect(report.steps[1]).toMatchObject({
      step: 2,
      kind: 'expect',
      ok: false,
      status: 200,
      differences: [{path: 'status', expected: 404, got: 200}],
    })
  })

  describe('a bad file exits 2 naming the step and field, and sends nothing', () => {
    it.each([
      [
        'an unknown step kind',
        [OPEN, {id: 'odd', dance: {}}],
        'step 2 (odd) .steps[1].dance: unknown step kind "dance"',
      ],
      [
        'a reference to no step',
        [OPEN, {id: 'c1', claim: {check: '${nobody.id}', items: []}}],
        'step 2 (c1) .steps[1].claim.check: ${nobody.id} refers to step "nobody", which no step has',
      ],
      [
        'a reference to a later step',
        [{pay: {check: '${open.id}', amount_cents: 100}}, OPEN],
        'step 1 .steps[0].pay.check: ${open.id} refers to step "open" (step 2), which has not run yet here',
      ],
      [
        'a field of a built-in reference',
        [{...OPEN, push: {...OPEN.push, location_id: '${location.id}'}}],
        'step 1 (open) .steps[0].push.location_id: ${location.id}: ${location} has no fields, write it alone',
      ],
      [
        'a snapshot name the snapshot routes refuse',
        [OPEN, {restore: 'Lunch Rush'}],
        'step 2 .steps[1].restore: must be 1-64 characters of a-z 0-9 _ -',
      ],
      [
        'an Idempotency-Key no request can send',
        [OPEN, {pay: {check: '${open.id}', amount_cents: 100, idempotency_key: 'k-€-${run}'}}],
        'step 2 .steps[1].pay.idempotency_key: must be a header value',
      ],
      [
        'a JSON subset that is no object or array',
        [OPEN, {expect: {get: '/checks/${open.id}', json: 'open'}}],
        'step 2 .steps[1].expect.json: must be a JSON object or array',
      ],
    ])('%s', async (_, steps, named) => {
      const path = await file('bad', steps)
      const before = await requestCount()
      const {code, stderr} = await scenario(['run', path])
      expect(code).toBe(2)
      expect(stderr).toContain(named)
      expect(stderr).toContain('Code: invalid_scenario')
      expect(await requestCount()).toBe(before)
    })

    it('with --json, the problems', async () => {
      const path = await file('bad-json', [OPEN, {id: 'odd', dance: {}}])
      const {code, stdout} = await scenario(['run', path, '--json'])
      expect(code).toBe(2)
      expect(JSON.parse(stdout)).toEqual({
        valid: false,
        problems: [
          {step: 2, id: 'odd', path: '.steps[1].dance', message: expect.stringContaining('unknown step kind')},
        ],
      })
    })
  })

  it.each([
    ['a file not found', 'no-such-scenario', 'No scenario file no-such-scenario'],
    ['a file that is not JSON', 'not-json', 'is not valid JSON'],
    // not the working directory, which '' would name
    ['an empty name', '', 'No scenario given'],
  ])('with --json, %s prints the error body, its message saying why', async (_, name, why) => {
    const path = name === 'not-json' ? join(dir, 'not-json.json') : name
    if (name === 'not-json') await writeFile(path, 'not json')
    for (const command of ['run', 'validate']) {
      const {code, stdout, stderr} = await scenario([command, path, '--json'])
      expect(code).toBe(2)
      expect(stderr).toBe('')
      const {error} = JSON.parse(stdout)
      expect(error).toMatchObject({code: 'invalid_scenario', message: expect.stringContaining(why)})
      expect(error.suggestions).toEqual([expect.stringContaining('tablepay scenario list')])
    }
  })

  it('a step nested too deep to write out is named, with its path, not refused as "no JSON value"', async () => {
    const path = join(dir, 'deep.json')
    const body = `${'['.repeat(20_000)}${']'.repeat(20_000)}`
    const request = `{"request": {"method": "POST", "path": "/checks", "body": ${body}}}`
    await writeFile(path, `{"tablepay_scenario": 1, "name": "deep", "steps": [${request}]}`)
    const validate = await scenario(['validate', path, '--json'])
    const problem = {
      step: 1,
      path: `.steps[0].request.body${'[0]'.repeat(63)}`,
      message: 'nests deeper than 64 levels, which no body or answer of the API does',
    }
    expect([validate.code, JSON.parse(validate.stdout)]).toEqual([2, {valid: false, problems: [problem]}])
    const run = await scenario(['run', path])
    expect([run.code, run.stderr]).toEqual([2, expect.stringContaining(problem.message)])
  })

  it('--forward-to: the receiver gets the run’s webhooks, signed with the listen secret; the endpoint is gone after', async () => {
    const receiver = await startReceiver()
    try {
      receiver.verifyWith((await api('POST', '/sim/listen-secret')).body.secret)
      const path = await file('forwarded', [
        OPEN,
        {expect_event: {type: 'check.created', json: {data: {id: '${open.id}'}}, delivered: true, within: '10s'}},
      ])
      const {code, stdout} = await scenario(['run', path, '--forward-to', receiver.url])
      expect(code).toBe(0)
      expect(stdout).toMatch(/^✓ 2 expect_event check\.created delivered within 10s$/m)
      expect(stdout).toMatch(new RegExp(`Webhooks went to ${receiver.url} through endpoint we_\\w+ \\(removed\\)`))
      expect(stdout).not.toContain('No delivery to')
      const created = receiver.received.map((r) => JSON.parse(r.body)).filter((e) => e.type === 'check.created')
      expect(created.length).toBeGreaterThan(0)
      expect(await endpointUrls()).not.toContain(receiver.url)
    } finally {
      await receiver.close() // throws unless every delivery passed Stripe's constructEvent
    }
  })

  it('--forward-to a URL where nothing answers: the run holds, and the summary says no delivery there succeeded', async () => {
    const path = await file('unanswered', [OPEN])
    const closed = 'http://127.0.0.1:9/hooks'
    const {code, stdout} = await scenario(['run', path, '--forward-to', closed])
    expect(code).toBe(0)
    expect(stdout).toContain(
      `No delivery to ${closed} succeeded (a 2xx) during the run: is your receiver running there?`,
    )
    const report = JSON.parse((await scenario(['run', path, '--forward-to', closed, '--json'])).stdout)
    expect(report.forwarded_to).toMatchObject({url: closed, delivered: false})
  })

  it('--forward-to: the endpoint is removed when a step fails, and on Ctrl+C', async () => {
    const receiver = await startReceiver()
    try {
      const failing = await file('fails', [OPEN, {expect: {get: '/checks/${open.id}', status: 404}}])
      expect((await scenario(['run', failing, '--forward-to', receiver.url])).code).toBe(1)
      expect(await endpointUrls()).not.toContain(receiver.url)

      const waiting = await file('waits', [OPEN, {expect_event: {type: 'feedback.received', within: '60s'}}])
      const run = startCommand(['scenario', 'run', waiting, '--forward-to', receiver.url], {env: server.env})
      await run.waitForOutput('✓ 1 (open)')
      expect(await endpointUrls()).toContain(receiver.url)
      const {code} = await run.interrupt()
      expect(code).toBe(1)
      expect(run.stderr()).toContain('The scenario run was interrupted.')
      expect(await endpointUrls()).not.toContain(receiver.url)
    } finally {
      await receiver.close()
    }
  })
  it('--json on Ctrl+C prints the report so far: the steps that ran, the one under way interrupted, the rest skipped', async () => {
    const path = await file('cut', [
      {...OPEN, push: {...OPEN.push, external_id: 'cut-${run}'}},
      {id: 'fed', expect_event: {type: 'feedback.received', within: '60s'}},
      {expect: {get: '/checks/${open.id}', status: 200}},
    ])
    const pushed = async () =>
      (await api('GET', '/sim/requests?limit=100')).body.data.some((r: {path: string}) =>
        r.path.includes('/checks/external/cut-'),
      )
    const before = await pushed()
    const run = startCommand(['scenario', 'run', path, '--json'], {env: server.env})
    await expect.poll(pushed).toBe(true)
    expect(before).toBe(false)
    const {code} = await run.interrupt()
    expect(code).toBe(1)
    expect(JSON.parse(run.stdout())).toMatchObject({
      ok: false,
      interrupted: true,
      passed: 1,
      failed: 1,
      skipped: 1,
      steps: [
        {step: 1, ok: true},
        {step: 2, id: 'fed', ok: false, error: 'interrupted while under way'},
        {step: 3, ok: false, skipped: true},
      ],
    })
  })

  it(
    '--json on Ctrl+C against a server that never answers prints the report and exits',
    {timeout: 30_000},
    async () => {
      // a server that takes each request and never answers
      const held: Socket[] = []
      let took!: () => void
      let taken: Promise<void>
      const silent = createServer((socket) => {
        held.push(socket)
        took()
      })
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
      try {
        const {port} = silent.address() as {port: number}
        const url = `http://127.0.0.1:${port}/v1`
        // stopped while a step's request is out, then while the run sets up (it reads the events an expect_event
        // step waits after)
        const asked = {request: {method: 'GET', path: '/locations'}}
        const awaited = {expect_event: {type: 'feedback.received', within: '60s'}}
        const skippedByStop = {skipped: true, error: 'the run was interrupted'}
        for (const [name, steps, reported] of [
          ['silent', [asked], [{error: 'interrupted while under way'}]],
          ['silent-setup', [asked, awaited], [skippedByStop, skippedByStop]],
        ] as const) {
          taken = new Promise<void>((resolve) => (took = resolve))
          const path = await file(name, [...steps])
          const run = spawnRunning(['scenario', 'run', path, '--json', '--url', url, '-k', 'tp_test_x'])
          await taken
          // its request is out and will never be answered: the run still ends, and so does the process
          expect(await run.kill('SIGINT')).toBe(1)
          expect(JSON.parse(run.stdout()), name).toMatchObject({interrupted: true, steps: reported})
        }
      } finally {
        for (const socket of held) socket.destroy()
        silent.close()
      }
    },
  )

  it('shows a spinner at a terminal while a step waits, gone once Ctrl+C ends the run', async () => {
    const waiting = await file('spins', [OPEN, {id: 'fed', expect_event: {type: 'feedback.received', within: '60s'}}])
    const restore = stderrAsTerminal()
    try {
      // NO_COLOR empty: a person at a terminal, colours on
      const run = startCommand(['scenario', 'run', waiting], {env: {...server.env, NO_COLOR: ''}})
      await run.waitForStderr('Step 2 (fed): expect_event')
      const {code} = await run.interrupt()
      expect(code).toBe(1)
      const stderr = run.stderr()
      expect(stderr).toContain('The scenario run was interrupted.')
      // a spinner that stops shows the cursor again (ora hides it while it spins)
      expect(stderr.lastIndexOf('\u001B[?25h')).toBeGreaterThan(stderr.lastIndexOf('Step 2 (fed): expect_event'))
    } finally {
      restore()
    }
  })

  it('--forward-to: an endpoint it cannot remove is named with what to do, the report kept', async () => {
    const receiver = await startReceiver()
    try {
      const path = await file('stuck', [
        {fault: {match: {method: 'DELETE', path: '/v1/webhook-endpoints/*'}, status: 500}},
      ])
      const {code, stdout} = await scenario(['run', path, '--forward-to', receiver.url])
      expect(code).toBe(0)
      const id = /through endpoint (we_\w+) \(not removed\)/.exec(stdout)?.[1]
      expect(stdout).toContain(`Endpoint ${id} (${receiver.url}) could not be removed (simulated_fault: `)
      expect(stdout).toContain(`delete it with tablepay webhooks delete ${id}.`)
      await api('DELETE', '/sim/faults')
      expect((await api('DELETE', `/webhook-endpoints/${id}`)).status).toBe(200)
    } finally {
      await api('DELETE', '/sim/faults')
      await receiver.close()
    }
  })

  it(
    '--forward-to: on Ctrl+C, a delete the server holds leaves its endpoint named, and the run ends',
    {timeout: 30_000},
    async () => {
      const receiver = await startReceiver()
      const faults = async () => (await api('GET', '/sim/faults')).body.data.length
      try {
        const path = await file('held-delete', [
          HELD_DELETE,
          {expect_event: {type: 'feedback.received', within: '60s'}},
        ])
        const run = spawnRunning(['scenario', 'run', path, '--json', '--forward-to', receiver.url], server.env)
        // a process of its own: its start alone may take a few seconds on a busy machine
        await expect.poll(faults, {timeout: 15_000}).toBe(1)
        expect(await run.kill('SIGINT')).toBe(1)
        const report = JSON.parse(run.stdout())
        expect(report).toMatchObject({
          interrupted: true,
          left_behind: [
            {
              endpoint_id: report.forwarded_to.endpoint_id,
              url: receiver.url,
              error: 'interrupted: no answer 2 s after the run was stopped',
            },
          ],
        })
        await api('DELETE', '/sim/faults')
        expect((await api('DELETE', `/webhook-endpoints/${report.forwarded_to.endpoint_id}`)).status).toBe(200)
      } finally {
        await api('DELETE', '/sim/faults')
        await receiver.close()
      }
    },
  )

  it(
    'stopped during its cleanup, a run is interrupted, not ok, and names what it left',
    {timeout: 30_000},
    async () => {
      // the steps all hold; the server holds the cleanup's delete of the endpoint on the run's receiver (HELD_DELETE)
      const path = await file('held-cleanup', [
        {webhook_endpoint: {url: '${receiver}', event_types: ['check.created']}},
        HELD_DELETE,
      ])
      const before = await endpointUrls()
      try {
        const run = spawnRunning(['scenario', 'run', path], server.env)
        await run.waitForOutput('✓ 2 fault')
        expect(await run.kill('SIGINT')).toBe(1)
        expect(run.stdout()).toMatch(/could not be removed \(interrupted: no answer 2 s after the run was stopped\)/)
        expect(run.stderr()).toContain('The scenario run was interrupted.')
      } finally {
        await api('DELETE', '/sim/faults')
        for (const endpoint of (await api('GET', '/webhook-endpoints?limit=100')).body.data)
          if (!before.includes(endpoint.url)) await api('DELETE', `/webhook-endpoints/${endpoint.id}`)
      }
    },
  )

  it.each([
    ['a restore step', {restore: 'back-${run}'}],
    ['a request step', {request: {method: 'POST', path: '/sim/snapshots/back-${run}/restore'}}],
  ])('deletes an endpoint a restore put back on its receiver: %s', async (_, restore) => {
    const before = await endpointUrls()
    const path = await file('put-back', [
      {id: 'made', webhook_endpoint: {url: '${receiver}/back', event_types: ['check.created']}},
      {snapshot: 'back-${run}'},
      {request: {method: 'PATCH', path: '/webhook-endpoints/${made.id}', body: {url: 'http://127.0.0.1:9/away'}}},
      restore,
    ])
    const {code, stdout} = await scenario(['run', path, '--json'])
    const report = JSON.parse(stdout)
    await api('DELETE', `/sim/snapshots/back-${report.run}`)
    expect([code, report.ok, report.left_behind]).toEqual([0, true, undefined])
    expect(await endpointUrls()).toEqual(before)
  })

  it('deletes an endpoint that ends the run on its receiver, and keeps one a step moved off it again', async () => {
    const mine = (
      await api('POST', '/webhook-endpoints', {url: 'http://127.0.0.1:9/mine', event_types: ['check.created']})
    ).body.id as string
    const hook = {url: 'http://127.0.0.1:9/made', event_types: ['check.created']}
    const path = await file('moved', [
      {request: {method: 'PATCH', path: `/webhook-endpoints/${mine}`, body: {url: '${receiver}'}}},
      {request: {method: 'PATCH', path: `/webhook-endpoints/${mine}`, body: {url: 'http://127.0.0.1:9/mine'}}},
      {id: 'made', webhook_endpoint: {...hook, url: '${receiver}/made'}},
      {request: {method: 'PATCH', path: '/webhook-endpoints/${made.id}', body: {url: hook.url}}},
      {id: 'left', webhook_endpoint: {...hook, url: '${receiver}/left'}},
    ])
    const before = await endpointUrls()
    try {
      const {code, stdout} = await scenario(['run', path, '--json'])
      expect(code).toBe(0)
      const report = JSON.parse(stdout)
      expect([report.ok, report.left_behind]).toEqual([true, undefined])
      const after = await endpointUrls()
      expect(after.filter((url) => !before.includes(url))).toEqual([hook.url])
      expect(after).toContain('http://127.0.0.1:9/mine')
    } finally {
      for (const endpoint of (await api('GET', '/webhook-endpoints?limit=100')).body.data)
        if (!before.includes(endpoint.url) || endpoint.id === mine)
          await api('DELETE', `/webhook-endpoints/${endpoint.id}`)
    }
  })
})

describe('scenario list and validate', () => {
  it('list shows the shipped scenarios; --json gives each with its steps and file, as every list is printed', async () => {
    const {code, stdout} = await scenario(['list'])
    expect(code).toBe(0)
    expect(stdout).toMatch(/^NAME +STEPS +DESCRIPTION$/m)
    expect(stdout).toMatch(/^split-bill +8 +Two guests/m)
    const list = JSON.parse((await scenario(['list', '--json'])).stdout)
    expect(list).toMatchObject({object: 'list', has_more: false, next_cursor: null})
    const listed = list.data
    // every file of fixtures/scenarios (test/scenarios/shipped.test.ts says which six)
    const files = (await readdir(join(ROOT, 'fixtures', 'scenarios'))).map((f) => f.replace(/\.json$/, '')).sort()
    expect(listed.map((s: {name: string}) => s.name)).toEqual(files)
    expect(listed[0].file).toMatch(/fixtures[/\\]scenarios[/\\]claim-then-pos-void\.json$/)
  })

  it('validate says a good file is valid (exit 0) and names each problem of a bad one (exit 2), sending nothing', async () => {
    const good = await scenario(['validate', await file('good', [OPEN])])
    expect(good.code).toBe(0)
    expect(good.stdout).toContain('valid, scenario good of 1 step')
    const before = await requestCount()
    const bad = await scenario(['validate', await file('bad2', [{id: 'run', push: {}}, {expect_event: {type: 'x'}}])])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('step 1 (run) .steps[0].id: "run" is a reference of its own')
    expect(bad.stderr).toContain('step 1 (run) .steps[0].push.external_id')
    expect(bad.stderr).toContain('step 2 .steps[1].expect_event.type')
    expect(await requestCount()).toBe(before)
  })

  it('validate - reads the scenario from stdin, reported as -; a bad one is named stdin', async () => {
    const input = JSON.stringify({tablepay_scenario: 1, name: 'piped', steps: [OPEN]})
    const good = await runCommand(['scenario', 'validate', '-'], {input})
    expect([good.code, good.stdout]).toEqual([0, '-: valid, scenario piped of 1 step\n'])
    const json = await runCommand(['scenario', 'validate', '-', '--json'], {input})
    expect(JSON.parse(json.stdout)).toEqual({valid: true, name: 'piped', steps: 1, file: '-'})

    const bad = await runCommand(['scenario', 'validate', '-'], {input: '{"steps": ['})
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining('stdin is not valid JSON')])
  })

  it('run and validate refuse - with empty stdin, sending nothing: exit 2, missing_input', async () => {
    const before = await requestCount()
    for (const command of ['validate', 'run']) {
      const {code, stdout} = await runCommand(['scenario', command, '-', '--json'], {env: server.env, input: ''})
      expect(code).toBe(2)
      expect(JSON.parse(stdout).error).toMatchObject({
        code: 'missing_input',
        message: 'stdin is empty: pass a file or a name instead of -, or pipe the scenario on stdin.',
      })
    }
    expect(await requestCount()).toBe(before)
  })

  it("validate prints the file's name with its control characters escaped", async () => {
    const path = join(dir, 'a\u001b[2Jb.json')
    await writeFile(path, JSON.stringify({tablepay_scenario: 1, name: 'named', steps: [OPEN]}))
    const {code, stdout} = await scenario(['validate', path])
    expect([code, stdout]).toEqual([0, `${join(dir, 'a\\u001b[2Jb.json')}: valid, scenario named of 1 step\n`])
  })

  it('validate refuses a request step that is a GET with a body, which fetch would not send', async () => {
    const path = await file('get-body', [{request: {method: 'GET', path: '/checks', body: {a: 1}}}])
    const {code, stderr} = await scenario(['validate', path])
    expect(code).toBe(2)
    expect(stderr).toContain('.steps[0].request.body: a GET or HEAD has no body: leave it out, or use another method')
  })

  it('a directory named as the scenario exits 2, saying so', async () => {
    for (const command of ['validate', 'run']) {
      const {code, stderr} = await scenario([command, dir])
      expect(code).toBe(2)
      expect(stderr).toContain('cannot be read as a scenario: a directory, not a file')
    }
  })

  it('a directory of the project named like a shipped scenario does not hide it', async () => {
    await mkdir(join(dir, 'refund'), {recursive: true})
    const {code, stdout} = await runCommand(['scenario', 'validate', 'refund'], {env: server.env, cwd: dir})
    expect([code, stdout]).toEqual([0, expect.stringContaining('valid, scenario refund of')])
  })

  it('a file that starts with a byte order mark is read as the JSON after it', async () => {
    const path = join(dir, 'bom.json')
    await writeFile(path, `\uFEFF${JSON.stringify({tablepay_scenario: 1, name: 'bom', steps: [OPEN]})}`)
    const {code, stdout} = await scenario(['validate', path])
    expect([code, stdout]).toEqual([0, expect.stringContaining('valid, scenario bom of 1 step')])
  })

  it('a file that is not JSON exits 2', async () => {
    const path = join(dir, 'broken.json')
    await writeFile(path, '{"steps": [')
    const {code, stderr} = await scenario(['validate', path])
    expect(code).toBe(2)
    expect(stderr).toContain('is not valid JSON')
  })
})
