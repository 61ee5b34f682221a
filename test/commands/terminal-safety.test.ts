import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type ApiServer, startApiServer} from '../helpers/api-server.js'
import {type CliProcess, runCommand, spawnServe, WRITE_KEY} from '../helpers/cli.js'
import {checkWith} from '../helpers/checks.js'

// what a terminal acts on rather than shows: C0 but the line feed that ends a printed line, DEL and C1
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/
const FAKE = '10:03:27 GET /v1/fake 200 1 ms req_forged'

// a path's last segment that clears the screen and sets the title, starts a forged line, and sends a C1 CSI
const HOSTILE_PATHS = [
  '/v1/checks/external/x%1b%5b2J%1b%5d0;pwned%07',
  `/v1/checks/external/x%0a${FAKE.replaceAll(' ', '%20')}`,
  '/v1/checks/external/x%C2%9B2J%7F%0d',
]

/** `text` as a terminal would get it: no control character, and no line that a client wrote. */
function expectInert(text: string): void {
  expect(text).not.toMatch(CONTROL)
  for (const line of text.split('\n')) expect(line.startsWith(FAKE)).toBe(false)
}

const send = (base: string, path: string, init: RequestInit = {}) =>
  fetch(`${base}${path}`, {...init, headers: {authorization: `Bearer ${WRITE_KEY}`, ...init.headers}})

describe('what the CLI prints of a check and of the request log', () => {
  let server: ApiServer
  const origin = () => server.url.replace(/\/v1$/, '')
  const cli = (args: string[]) => runCommand(args, {env: server.env})
  const push = (externalId: string, body: unknown) =>
    send(origin(), `/v1/checks/external/${externalId}`, {
      method: 'PUT',
      body: JSON.stringify(body),
      headers: {'content-type': 'application/json'},
    })
  let updated: string
  const refused: string[] = []
  beforeAll(async () => {
    server = await startApiServer()
    // item names, a note and a table number that a POS could send
    const withNames = (names: string[], version: number) => {
      const check = checkWith(
        names.map((_, i): [string, number, number, string] => [`i${i}`, 1, 100, `note \u009b31m${i}`]),
        {table: {number: '\u001b]0;pwned\u0007'}, version},
      )
      names.forEach((name, i) => (check.items[i]!.name = name))
      return check
    }
    expect((await push('term-1', withNames(['Soup\u001b[2J'], 1))).status).toBe(201)
    const moved = await push('term-1', withNames([`Soup\n${FAKE}`, 'Cake\u009b2J\u007f'], 2))
    expect(moved.status).toBe(200)
    updated = moved.headers.get('x-request-id')!
    for (const path of HOSTILE_PATHS) {
      const answer = await send(origin(), path)
      expect(answer.status).toBeGreaterThanOrEqual(400)
      refused.push(answer.headers.get('x-request-id')!)
    }
  })
  afterAll(() => server.stop())

  it('checks get shows item names, notes and the table with their control characters escaped', async () => {
    const shown = await cli(['checks', 'get', 'term-1'])
    expect(shown.code).toBe(0)
    expectInert(shown.stdout)
    expect(shown.stdout).toContain('Table \\u001b]0;pwned\\u0007')
    expect(shown.stdout).toContain(`Soup\\u000a${FAKE}`)
    expect(shown.stdout).toContain('Cake\\u009b2J\\u007f')
    expect(shown.stdout).toContain('note \\u009b31m1')
  })

  it("scenario run prints its steps' paths, what differed and the server's errors with their control characters escaped", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tablepay-terminal-'))
    try {
      const path = join(dir, 'hostile.json')
      const steps = [
        {id: 'c', expect: {get: '/checks/external/term-1', json: {items: [{name: 'x'}]}}},
        // the item's name as a path: the title holds it, and the server's not_found quotes it
        {expect: {get: '/claims/${c.items.1.name}'}},
      ]
      await writeFile(path, JSON.stringify({tablepay_scenario: 1, name: 'hostile', steps}))
      const run = await cli(['scenario', 'run', path])
      expect(run.code).toBe(1)
      expectInert(run.stdout)
      // JSON escapes the line feed itself; the C1 CSI of the note it leaves as it is
      expect(run.stdout).toContain('got {"external_id":"i0","name":"Soup\\n10:03:27')
      expect(run.stdout).toContain('"note":"note \\u009b31m0"')
      expect(run.stdout).toContain('GET /claims/Cake\\u009b2J\\u007f → 404')
      expect(run.stdout).toContain('not_found: No claim Cake\\u009b2J\\u007f in this account.')
    } finally {
      await rm(dir, {recursive: true, force: true})
    }
  })

  it("an error's message that quotes what was sent is printed escaped, the server's and the CLI's own", async () => {
    for (const args of [
      ['events', 'get', 'evt_\u001b[31mred\u009b2J'],
      ['checks', 'list', '--starting-after', 'chk_\u001b]0;pwned\u0007'],
      ['checks', 'get', 'x\u001b[2J'],
    ]) {
      const refused = await cli(args)
      expect(refused.code, args.join(' ')).not.toBe(0)
      expect(refused.stderr, args.join(' ')).toContain('\\u001b')
      expectInert(refused.stderr)
    }
  })

  it('logs list prints one line per request, the paths escaped', async () => {
    const listed = await cli(['logs', 'list', '--path', '/v1/checks/external/x'])
    expect(listed.code).toBe(0)
    expectInert(listed.stdout)
    const printed = listed.stdout.trimEnd().split('\n')
    // newest first
    expect(printed).toHaveLength(HOSTILE_PATHS.length)
    expect(printed[0]).toContain('/v1/checks/external/x\\u009b2J\\u007f\\u000d ')
    expect(printed[1]).toContain(`/v1/checks/external/x\\u000a${FAKE} `)
    expect(printed[2]).toContain('/v1/checks/external/x\\u001b[2J\\u001b]0;pwned\\u0007 ')
  })

  it('logs get shows both bodies, the error and what moved with their control characters escaped', async () => {
    const moved = await cli(['logs', 'get', updated])
    expect(moved.code).toBe(0)
    expectInert(moved.stdout)
    expect(moved.stdout).toContain('"name": "Cake\\u009b2J\\u007f"')
    expect(moved.stdout).toContain(`~ item i0: name "Soup\\u001b[2J" → "Soup\\n${FAKE}"`)
    for (const id of refused) {
      const shown = await cli(['logs', 'get', id])
      expect(shown.code).toBe(0)
      expectInert(shown.stdout)
      expect(shown.stdout).toContain('GET /v1/checks/external/x\\u00')
    }
  })
})

describe('the access line of serve', () => {
  let serve: CliProcess
  afterAll(() => serve.stop())

  it('prints a hostile path, sent with no key, escaped, on one line of its own', async () => {
    serve = spawnServe(['--memory', '--seed', 'fixtures/seed.json', '--log'])
    const banner = await serve.waitForOutput('Press Ctrl+C to stop.')
    const origin = /listening on (http:\/\/\S+)\/v1/.exec(banner)![1]!
    for (const path of HOSTILE_PATHS) await fetch(`${origin}${path}`)
    await send(origin, HOSTILE_PATHS[0]!, {headers: {'x-request-id': 'last-of-test'}})
    const printed = (await serve.waitForOutput('last-of-test')).slice(banner.length)
    expectInert(printed)
    const lines = printed.trimEnd().split('\n')
    expect(lines).toHaveLength(HOSTILE_PATHS.length + 1)
    expect(lines[0]).toMatch(/ GET \/v1\/checks\/external\/x\\u001b\[2J\\u001b\]0;pwned\\u0007 401 /)
    expect(lines[1]).toContain(`/v1/checks/external/x\\u000a${FAKE} 401 `)
    expect(lines[2]).toContain('/v1/checks/external/x\\u009b2J\\u007f\\u000d 401 ')
  })
})
