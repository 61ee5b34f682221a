import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cliFor, type CliProcess, type CliServer, IN_MEMORY, spawnRunning, startCliServer} from '../helpers/cli.js'
import {checkWith} from '../helpers/checks.js'

let server: CliServer
beforeAll(async () => {
  server = await startCliServer([...IN_MEMORY, '--log', '--rate-limit', '1000'])
})
afterAll(() => server.stop())

const cli = (args: string[]) => cliFor(server).cli(args)
const json = (args: string[]) => cliFor(server).json(args)
const call = (method: string, path: string, body?: unknown) =>
  fetch(`${server.url.replace(/\/v1$/, '')}${path}`, {
    method,
    headers: {authorization: `Bearer ${server.env.TABLEPAY_API_KEY}`, 'content-type': 'application/json'},
    body: body === undefined ? undefined : JSON.stringify(body),
  })
const lines = (text: string) => text.split('\n').filter((line) => line.trim() !== '')

describe('a command that keeps printing, with --json', () => {
  it.each([[['logs', 'tail']], [['deliveries', 'tail']], [['listen', '--forward-to', 'http://127.0.0.1:9/hooks']]])(
    '%j prints an error that ends it before any record as one JSON line',
    async (args) => {
      const ran = await cliFor({env: {...server.env, TABLEPAY_API_KEY: 'tp_test_unknown'}}).cli([...args, '--json'])
      expect(ran.code).toBe(1)
      expect(lines(ran.stdout)).toHaveLength(1)
      expect(JSON.parse(ran.stdout).error).toMatchObject({code: 'unauthenticated'})
    },
  )
})

describe('logs tail, and the access line of serve --log', () => {
  const tails: CliProcess[] = []
  afterAll(async () => {
    for (const tail of tails) await tail.stop()
  })

  it('prints one line per request live; --json one object per line; filters keep what they name', async () => {
    const all = spawnRunning(['logs', 'tail'], server.env)
    const refusedPushes = spawnRunning(
      ['logs', 'tail', '--json', '--status', '4xx', '--method', 'put', '--path', '/v1/checks'],
      server.env,
    )
    tails.push(all, refusedPushes)
    await Promise.all([all.waitForStderr('Waiting for requests'), refusedPushes.waitForStderr('Waiting for requests')])
    const before = lines(server.stdout()).length

    expect((await call('PUT', '/v1/checks/external/tail-1', checkWith([['a', 1, 100]]))).status).toBe(201)
    const refused = await call('PUT', '/v1/checks/external/tail-1', {nope: 1})
    expect(refused.status).toBe(422)
    expect((await call('GET', '/v1/locations?limit=5')).status).toBe(200)
    expect((await call('GET', '/v1/nothing-here')).status).toBe(404)

    await all.waitForOutput('/v1/nothing-here')
    const printed = lines(all.stdout())
    expect(printed).toHaveLength(4)
    expect(printed[0]).toMatch(/^\d\d:\d\d:\d\d PUT \/v1\/checks\/external\/tail-1 201 created \d+ ms req_\w+$/)
    expect(printed[1]).toMatch(/ PUT \/v1\/checks\/external\/tail-1 422 validation_failed \d+ ms /)
    expect(printed[2]).toMatch(/ GET \/v1\/locations 200 \d+ ms /)
    expect(printed[3]).toMatch(/ GET \/v1\/nothing-here 404 not_found /)

    await refusedPushes.waitForOutput('\n')
    const objects = lines(refusedPushes.stdout()).map((line) => JSON.parse(line))
    expect(objects).toHaveLength(1)
    expect(objects[0]).toMatchObject({
      object: 'request',
      id: refused.headers.get('x-request-id'),
      status: 422,
      request_body: {nope: 1},
      error: {code: 'validation_failed'},
    })

    // serve --log --json: the same requests as JSON access lines on its stdout, after the ready line
    await server.waitForOutput('/v1/nothing-here')
    const access = lines(server.stdout())
      .slice(before)
      .map((line) => JSON.parse(line))
      .filter((line) => line.path !== '/v1/sim/stream')
    expect(access.map((a) => [a.method, a.path, a.status, a.push_result, a.error_code])).toEqual([
      ['PUT', '/v1/checks/external/tail-1', 201, 'created', null],
      ['PUT', '/v1/checks/external/tail-1', 422, null, 'validation_failed'],
      ['GET', '/v1/locations', 200, null, null],
      ['GET', '/v1/nothing-here', 404, null, 'not_found'],
    ])
    expect(access[1]).toMatchObject({object: 'request', id: refused.headers.get('x-request-id')})
  })
})

describe('a command that keeps printing, its reader gone', () => {
  it.each([[['logs', 'tail']], [['logs', 'tail', '--json']]])(
    '%j ends, exit 0, once a line it prints finds its reader gone (`| head -1`)',
    async (args) => {
      const tail = spawnRunning(args, server.env)
      let ended = false
      void tail.exited.then(() => (ended = true))
      try {
        await tail.waitForStderr('Waiting for requests')
        tail.closeStdout()
        // each request is a line it prints: the first write after the close fails with EPIPE
        const requests = (async () => {
          // it ends a few hundred ms after: its stream closed, its connections let go
          for (let i = 0; i < 3000 && !ended; i++) await call('GET', '/v1/locations')
          return 'still running after 3,000 lines'
        })()
        expect(await Promise.race([tail.exited, requests]), tail.stderr()).toBe(0)
      } finally {
        if (!ended) await tail.kill('SIGKILL')
      }
    },
  )
})

describe('logs list and logs get', () => {
  it('list shows lines newest first with filters; get shows both bodies, the error and what a push moved', async () => {
    await call('PUT', '/v1/checks/external/get-1', checkWith([['a', 1, 100]], {version: 1}))
    const moved = await call('PUT', '/v1/checks/external/get-1', checkWith([['a', 2, 100]], {version: 2}))
    const requestId = moved.headers.get('x-request-id')!

    const listed = await cli(['logs', 'list', '--path', '/v1/checks/external/get-1'])
    expect(listed.code).toBe(0)
    expect(lines(listed.stdout).map((l) => / (\d{3}) (\w+)/.exec(l)?.slice(1))).toEqual([
      ['200', 'updated'],
      ['201', 'created'],
    ])
    const page = await json(['logs', 'list', '--status', '2xx', '--method', 'PUT', '-n', '1'])
    expect(page.data.map((e: {id: string}) => e.id)).toEqual([requestId])

    const shown = await cli(['logs', 'get', requestId])
    expect(shown.code).toBe(0)
    expect(shown.stdout).toContain('Request')
    expect(shown.stdout).toContain('"quantity": 2')
    expect(shown.stdout).toContain('Changes')
    expect(shown.stdout).toContain('~ item a: quantity 1 → 2')
    const entry = await json(['logs', 'get', requestId])
    expect(entry).toMatchObject({
      id: requestId,
      push_result: 'updated',
      changes: {items: {changed: [{external_id: 'a'}]}},
    })

    const missing = await cli(['logs', 'get', 'req_nope'])
    expect([missing.code, missing.stderr]).toEqual([1, expect.stringContaining('Code: not_found')])
  })
})

describe('logs filters', () => {
  it.each([
    [['--method', 'PTU'], '"PTU" is not one of the HTTP methods (GET, POST, PUT, PATCH, DELETE, OPTIONS…).'],
    [['--path', 'v1/checks'], '"v1/checks" does not start with /, as every path does (/v1/checks).'],
    [['--path', `/v1/${'a'.repeat(2000)}`], 'is longer than 2000 characters, which no path is.'],
  ])('refuse %j, which would match nothing, as a wrong command line: list and tail alike', async (flags, said) => {
    for (const command of ['list', 'tail']) {
      const {code, stderr} = await cli(['logs', command, ...flags])
      expect([code, stderr.replace(/\s*\n[\s›]*/g, ' ')]).toEqual([2, expect.stringContaining(said)])
    }
  })
  it('take a method no route takes, which a request may still have had: it was answered 405, and logged', async () => {
    expect((await call('PROPFIND', '/v1/locations')).status).toBe(405)
    const page = await json(['logs', 'list', '--method', 'propfind', '-n', '1'])
    expect(page.data).toMatchObject([{method: 'PROPFIND', path: '/v1/locations', status: 405}])
  })
})

describe('faults add, list and clear', () => {
  it('adds a fault the next push meets, lists it, and clears it', async () => {
    const added = await json(['faults', 'add', '--method', 'PUT', '--path', '/v1/checks/external/*', '--status', '503'])
    expect(added).toMatchObject({match: {method: 'PUT', path: '/v1/checks/external/*'}, status: 503, times: 1})
    const always = await cli(['faults', 'add', '--delay', '250ms', '--always', '--path', '/v1/events'])
    expect(always.stdout).toMatch(/^Added flt_\w+: any \/v1\/events → hold 250 ms \(always\)\./)
    const listed = await cli(['faults', 'list'])
    expect(lines(listed.stdout)).toHaveLength(3)
    expect(listed.stdout).toContain('503 (Retry-After 1s)')

    const failed = await call('PUT', '/v1/checks/external/fault-1', checkWith([['a', 1, 100]]))
    expect([failed.status, failed.headers.get('x-tablepay-fault')]).toEqual([503, added.id])
    expect((await json(['faults', 'list'])).data).toHaveLength(1)

    expect((await cli(['faults', 'clear'])).stdout).toBe('Removed 1 fault.\n')
    expect((await json(['faults', 'list'])).data).toEqual([])
    const gone = await cli(['faults', 'clear', added.id])
    expect(gone.code).toBe(1)
  })

  it('a command whose answer a --reset fault loses says so, and where to look: faults, a stop, then --url', async () => {
    await json(['faults', 'add', '--method', 'GET', '--path', '/v1/locations', '--reset'])
    const lost = await cli(['locations', 'list'])
    expect(lost.code).toBe(1)
    expect(lost.stderr).toContain('closed the connection without an answer')
    expect(lost.stderr).toContain('tablepay faults list')
    expect(lost.stderr).toContain('a stop of the server')
    expect(lost.stderr).not.toContain('Could not reach')
  })

  it('takes --method in any case, HEAD among them, as the API does', async () => {
    const head = await json(['faults', 'add', '--method', 'head', '--path', '/v1/locations', '--status', '500'])
    expect(head.match).toEqual({method: 'HEAD', path: '/v1/locations'})
    const refused = await cli(['faults', 'add', '--method', 'trace', '--status', '500'])
    expect([refused.code, refused.stderr]).toEqual([2, expect.stringContaining('"trace" is not one of GET, HEAD')])
    await cli(['faults', 'clear'])
  })

  it('refuses what the API would refuse, before sending it', async () => {
    expect((await cli(['faults', 'add', '--status', '418'])).code).toBe(2)
    expect((await cli(['faults', 'add', '--status', '503', '--reset'])).code).toBe(2)
    expect((await cli(['faults', 'add', '--probability', '3', '--status', '500'])).code).toBe(2)
    // an unset shell variable: no fault that never strikes
    const empty = await cli(['faults', 'add', '--probability', '', '--status', '500', '--always'])
    expect(empty.code).toBe(2)
    expect(empty.stderr).toContain('"" is not a probability')
    const tooLong = await cli(['faults', 'add', '--delay', '90s'])
    expect(tooLong.code).toBe(2)
    expect(tooLong.stderr).toContain('"90s" is longer than 60s')
    const tooLate = await cli(['faults', 'add', '--status', '503', '--retry-after', '86401'])
    expect([tooLate.code, tooLate.stderr]).toEqual([2, expect.stringContaining('"86401" is longer than 1d')])
    const fraction = await cli(['faults', 'add', '--status', '503', '--retry-after', '1.5s'])
    expect([fraction.code, fraction.stderr]).toEqual([2, expect.stringContaining('"1.5s" is not whole seconds')])
    for (const status of [
      ['--status', '500'],
      ['--delay', '1s'],
    ]) {
      const noWait = await cli(['faults', 'add', ...status, '--retry-after', '5'])
      expect([noWait.code, noWait.stderr]).toEqual([2, expect.stringContaining('only 429 and 503 answers carry')])
    }
    const nothing = await cli(['faults', 'add', '--path', '/v1/events'])
    expect(nothing.code).toBe(2)
    expect(nothing.stderr).toContain('A fault needs --status, --delay or --reset')
    const bigSeed = await cli(['faults', 'add', '--status', '500', '--seed', '4294967296'])
    expect([bigSeed.code, bigSeed.stderr]).toEqual([2, expect.stringContaining('less than or equal to 4294967295')])
    expect((await json(['faults', 'list'])).data).toEqual([])
  })

  it('takes --retry-after as a duration of whole seconds, as the header carries it', async () => {
    try {
      expect(await json(['faults', 'add', '--status', '503', '--retry-after', '2m'])).toMatchObject({
        retry_after_s: 120,
      })
      expect(await json(['faults', 'add', '--status', '429', '--retry-after', '0'])).toMatchObject({retry_after_s: 0})
    } finally {
      await cli(['faults', 'clear'])
    }
  })

  it('holds a --delay in whole milliseconds: under one is one, not a fault that does nothing', async () => {
    try {
      const fault = await json(['faults', 'add', '--delay', '0.0001ms', '--path', '/v1/events'])
      expect(fault.delay_ms).toBe(1)
      const exact = await json(['faults', 'add', '--delay', '1.001s', '--path', '/v1/events'])
      expect(exact.delay_ms).toBe(1001)
    } finally {
      await cli(['faults', 'clear'])
    }
  })
})

describe('an id no path can name', () => {
  it('is a wrong command line, exit 2, sent nowhere: `faults clear ""` clears no fault', async () => {
    const kept = await json(['faults', 'add', '--path', '/v1/claims/clm_none', '--status', '503'])
    for (const args of [
      ['faults', 'clear', ''],
      ['faults', 'clear', '.'],
      ['events', 'get', '..'],
      ['deliveries', 'get', ''],
    ]) {
      const refused = await cli(args)
      expect([refused.code, refused.stderr], args.join(' ')).toEqual([
        2,
        expect.stringContaining('names nothing a path can reach'),
      ])
    }
    const asJson = await cli(['events', 'get', '', '--json'])
    expect([asJson.code, JSON.parse(asJson.stdout).error.code]).toEqual([2, 'invalid_usage'])
    expect((await json(['faults', 'list'])).data.map((f: {id: string}) => f.id)).toEqual([kept.id])
    await cli(['faults', 'clear'])
  })

  it('holds a "?": refused as the id it is, not sent to be answered as a route that blames --url', async () => {
    for (const args of [
      ['events', 'get', 'evt_1?x=1'],
      ['faults', 'clear', 'flt_?'],
      ['deliveries', 'tail', '--endpoint', 'we_1?'],
    ]) {
      const refused = await cli(args)
      expect([refused.code, refused.stderr], args.join(' ')).toEqual([2, expect.stringContaining('holds a "?"')])
      expect(refused.stderr).not.toContain('--url')
    }
  })
})

describe('serve --request-log 0', () => {
  it('logs nothing, prints no access line, and limits each key to 1 request a second', async () => {
    const quiet = await startCliServer([...IN_MEMORY, '--request-log', '0', '--no-log', '--rate-limit', '1'])
    try {
      const headers = {authorization: `Bearer ${quiet.env.TABLEPAY_API_KEY}`}
      const first = await fetch(`${quiet.url}/locations`, {headers})
      const second = await fetch(`${quiet.url}/locations`, {headers})
      expect([first.status, first.headers.get('x-ratelimit-limit')]).toEqual([200, '1'])
      expect([second.status, second.headers.get('retry-after')]).toEqual([429, '1'])
      const log = await fetch(`${quiet.url}/sim/requests`, {headers})
      expect(log.status).toBe(404)
      expect(lines(quiet.stdout())).toHaveLength(1)
    } finally {
      await quiet.stop()
    }
  })

  it('logs list and logs tail say the log is off and how to turn it on: tail waits for nothing', async () => {
    const off = await startCliServer([...IN_MEMORY, '--request-log', '0'])
    try {
      for (const args of [
        ['logs', 'list'],
        ['logs', 'tail'],
      ]) {
        const {code, stderr} = await cliFor(off).cli(args)
        expect(code).toBe(1)
        expect(stderr).toContain('The request log is off on this server (serve --request-log 0)')
        expect(stderr).toContain('--request-log N')
        // the message says what to do: no hint to check an id
        expect(stderr).not.toContain('Try this')
      }
    } finally {
      await off.stop()
    }
  })
})
