import {readFileSync} from 'node:fs'
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {shuffledOrder} from '../../../src/cli/replay/replay.js'
import {type ApiServer, startApiServer} from '../../helpers/api-server.js'
import {ROOT, runCommand} from '../../helpers/cli.js'
import {call} from '../../helpers/simulator.js'

let server: ApiServer
beforeAll(async () => {
  server = await startApiServer()
})
afterAll(() => server.stop())

const replay = (args: string[]) => runCommand(['checks', 'replay', ...args], {env: server.env})
const DINNER = 'fixtures/replays/dinner-service.json'
const WRONG = 'fixtures/replays/version-per-line-count.json'
const pushesOf = (file: string) => JSON.parse(readFileSync(join(ROOT, file), 'utf8')).pushes.length as number

/** The first seed whose shuffled order puts push `a` (1-based) before push `b`, or after it. */
function seedWhere(count: number, a: number, b: number, before: boolean): number {
  for (let seed = 0; ; seed++) {
    const order = shuffledOrder(count, {seed, duplicates: false})
    if (order.indexOf(a - 1) < order.indexOf(b - 1) === before) return seed
  }
}

describe('checks replay', () => {
  it('a scenario with right versions converges: exit 0, every push applied in order', async () => {
    const {code, stdout} = await replay([DINNER, '--seed', '42'])
    expect(code).toBe(0)
    expect(stdout).toContain('7 pushes to 2 checks.')
    expect(stdout).toMatch(/Shuffled with --seed 42: (\d )+\d\n/)
    expect(stdout).toContain('Both runs ended in the same state for 2 checks: the versions converge.')
  })

  it('reads a scenario that starts with a byte order mark, as Notepad and PowerShell write it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tablepay-replay-bom-'))
    try {
      const file = join(dir, 'dinner.json')
      await writeFile(file, `\uFEFF${readFileSync(join(ROOT, DINNER), 'utf8')}`)
      const {code, stdout} = await replay([file, '--seed', '42'])
      expect([code, stdout]).toEqual([0, expect.stringContaining('the versions converge')])
    } finally {
      await rm(dir, {recursive: true, force: true})
    }
  })

  it('with --json reports both runs; the same seed gives the same order; --duplicates sends some pushes twice', async () => {
    const first = JSON.parse((await replay([DINNER, '--seed', '9', '--duplicates', '--json'])).stdout)
    const again = JSON.parse((await replay([DINNER, '--seed', '9', '--duplicates', '--json'])).stdout)
    expect(first).toMatchObject({
      seed: 9,
      duplicates: true,
      checks: ['t12', 't7'],
      converged: true,
      differences: [],
      problems: [],
      ok: true,
      kept: false,
    })
    expect(first.in_order.order).toEqual([1, 2, 3, 4, 5, 6, 7])
    expect(first.in_order.outcomes.map((o: {result: string}) => o.result)).toEqual([
      'created',
      'created',
      'updated',
      'updated',
      'updated',
      'updated',
      'updated',
    ])
    expect(first.shuffled.order.length).toBeGreaterThan(7)
    expect(new Set(first.shuffled.order)).toEqual(new Set([1, 2, 3, 4, 5, 6, 7]))
    expect(again.shuffled.order).toEqual(first.shuffled.order)
  })

  it('epoch-millisecond versions and a resent state converge too', async () => {
    const {code, stdout} = await replay(['fixtures/replays/bar-tab-epoch-versions.json', '--duplicates', '--json'])
    expect(code).toBe(0)
    expect(JSON.parse(stdout).ok).toBe(true)
  })

  it('wrong versions: shows the difference of the final states and the refused pushes, exit 1', async () => {
    // push 5 (closed) and push 4 (open) share version 3: whichever arrives first wins
    const seed = seedWhere(pushesOf(WRONG), 5, 4, true)
    const {code, stdout, stderr} = await replay([WRONG, '--seed', String(seed)])
    expect(code).toBe(1)
    expect(stdout).toContain('The two runs ended in different states:')
    expect(stdout).toMatch(/t5\s+\.status\s+"open"\s+"closed"/)
    expect(stdout).toContain('In order, push #3 (t5, version 2) was refused')
    expect(stdout).toContain('In order, push #5 (t5, version 3) was refused')
    expect(stderr).toContain('the versions do not converge')
    expect(stderr).toContain('Code: replay_failed')
    expect(stderr).toContain(`--seed ${seed}`)

    const report = JSON.parse((await replay([WRONG, '--seed', String(seed), '--json'])).stdout)
    expect(report).toMatchObject({ok: false, converged: false})
    expect(report.differences).toContainEqual({
      external_id: 't5',
      path: '.status',
      in_order: 'open',
      shuffled: 'closed',
    })
    expect(report.problems).toContainEqual(
      expect.objectContaining({
        run: 'in_order',
        push: 3,
        outcome: {error: {code: 'version_conflict', message: expect.any(String)}},
      }),
    )
  })

  it('wrong versions fail even when a shuffle happens to end in the same state', async () => {
    const seed = seedWhere(pushesOf(WRONG), 4, 5, true)
    const {code, stdout} = await replay([WRONG, '--seed', String(seed), '--json'])
    expect(code).toBe(1)
    const report = JSON.parse(stdout)
    expect(report).toMatchObject({converged: true, ok: false})
    expect(
      report.problems.filter((p: {run: string}) => p.run === 'in_order').map((p: {push: number}) => p.push),
    ).toEqual([3, 5])
  })

  it("runs in scratch accounts: the caller's checks are untouched, and the accounts are deleted unless --keep", async () => {
    const report = JSON.parse((await replay([DINNER, '--json'])).stdout)
    const key = (run: 'in_order' | 'shuffled') => report.accounts[run].api_key
    expect((await call(server.url.replace(/\/v1$/, ''), 'GET', '/v1/checks', {key: key('in_order')})).status).toBe(401)
    expect((await call(server.url.replace(/\/v1$/, ''), 'GET', '/v1/checks', {key: key('shuffled')})).status).toBe(401)
    const mine = await runCommand(['checks', 'list', '--json'], {env: server.env})
    expect(JSON.parse(mine.stdout).data).toEqual([])

    const kept = JSON.parse((await replay([DINNER, '--keep', '--json'])).stdout)
    expect(kept.kept).toBe(true)
    const checks = await call(server.url.replace(/\/v1$/, ''), 'GET', '/v1/checks', {
      key: kept.accounts.shuffled.api_key,
    })
    expect(checks.body.data.map((c: {external_id: string; location_id: string}) => c.external_id).sort()).toEqual([
      't12',
      't7',
    ])
  })

  it('reads the scenario from stdin for -, and names stdin in its refusal of a bad one', async () => {
    const input = readFileSync(join(ROOT, DINNER), 'utf8')
    const piped = await runCommand(['checks', 'replay', '-', '--seed', '42'], {env: server.env, input})
    expect([piped.code, piped.stdout]).toEqual([0, expect.stringContaining('the versions converge')])

    const bad = await runCommand(['checks', 'replay', '-'], {env: server.env, input: '{"pushes": []}'})
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining('stdin is not a valid scenario:')])
  })

  it('refuses - with empty stdin before calling the server: exit 2, missing_input', async () => {
    const {code, stdout} = await runCommand(['checks', 'replay', '-', '--json'], {
      env: {TABLEPAY_URL: 'http://127.0.0.1:1', TABLEPAY_API_KEY: 'tp_test_none'},
      input: '',
    })
    expect(code).toBe(2)
    expect(JSON.parse(stdout).error).toMatchObject({
      code: 'missing_input',
      message: 'stdin is empty: pass the scenario file instead of -, or pipe the scenario on stdin.',
    })
  })

  it('refuses an invalid scenario before calling the server, naming each problem: exit 2, as scenario run does', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tablepay-replay-'))
    try {
      const file = join(dir, 'bad.json')
      await writeFile(
        file,
        JSON.stringify({
          pushes: [
            {
              external_id: 't1',
              body: {
                table: {number: '1'},
                status: 'open',
                items: [],
                totals: {subtotal_cents: 1, tax_cents: 0, total_cents: 2},
              },
            },
          ],
        }),
      )
      const {code, stderr} = await runCommand(['checks', 'replay', file], {
        env: {TABLEPAY_URL: 'http://127.0.0.1:1', TABLEPAY_API_KEY: 'tp_test_none'},
      })
      // a wrong input, as `scenario run` refuses one
      expect(code).toBe(2)
      expect(stderr).toContain('is not a valid scenario')
      expect(stderr).toContain('.pushes[0].body.totals.total_cents: must equal subtotal_cents + tax_cents')
      expect(stderr).toContain('Code: invalid_scenario')
    } finally {
      await rm(dir, {recursive: true, force: true})
    }
  })

  it('a scenario file that cannot be read is a wrong command line: exit 2, and what to check', async () => {
    const {code, stdout} = await runCommand(['checks', 'replay', 'no-such-scenario.json', '--json'], {
      env: {TABLEPAY_URL: 'http://127.0.0.1:1', TABLEPAY_API_KEY: 'tp_test_none'},
    })
    expect(code).toBe(2)
    expect(JSON.parse(stdout).error).toMatchObject({
      code: 'unreadable_input',
      suggestions: [expect.stringContaining('Check the path')],
    })
  })
})
