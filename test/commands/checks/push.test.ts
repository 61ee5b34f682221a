import {readFileSync} from 'node:fs'
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type ApiServer, startApiServer, startServeFlags} from '../../helpers/api-server.js'
import {cliFor, READ_KEY, ROOT, runCli, runCommand} from '../../helpers/cli.js'
import {checkWith} from '../../helpers/checks.js'

let server: ApiServer
beforeAll(async () => {
  server = await startApiServer()
})
afterAll(() => server.stop())

const push = (args: string[], input?: string) => runCommand(['checks', 'push', ...args], {env: server.env, input})
const fixture = (name: string) => readFileSync(join(ROOT, 'fixtures', 'checks', `${name}.json`), 'utf8')

describe('checks push', () => {
  it('runs the examples of its help as written, in order, on the demo seed of two locations', async () => {
    const demo = await startServeFlags([])
    try {
      const {cli} = cliFor(demo)
      const help = (await cli(['checks', 'push', '--help'])).stdout
      // the section, its long lines joined again where the help wrapped them
      const section = help.slice(help.indexOf('EXAMPLES'), help.indexOf('EXIT CODES')).replaceAll(/ \\\n +/g, ' ')
      const examples = [...section.matchAll(/^ +\$ tablepay checks push (.+)$/gm)].map((match) => match[1]!)
      expect(examples).toHaveLength(5)
      for (const example of examples) {
        const [args, from] = example.split(' < ')
        const input = from === undefined ? undefined : fixture('open')
        const ran = await runCommand(['checks', 'push', ...args!.split(' ')], {env: demo.env, input})
        expect([ran.code, ran.stderr], example).toEqual([0, ''])
      }
    } finally {
      await demo.stop()
    }
  })

  it("finds the help's fixtures/… in the package when run in a project that has none, as checks lint and replay do", async () => {
    const project = await mkdtemp(join(tmpdir(), 'tablepay-project-'))
    try {
      const run = (args: string[]) => runCli(args, {env: server.env, cwd: project})
      const pushed = await run(['checks', 'push', 't-pkg', '-f', 'fixtures/checks/open.json', '--json'])
      expect([pushed.code, JSON.parse(pushed.stdout).external_id]).toEqual([0, 't-pkg'])
      const linted = await run(['checks', 'lint', 'fixtures/checks/open.json', '--json'])
      expect([linted.code, JSON.parse(linted.stdout).files[0].valid]).toEqual([0, true])
      const replayed = await run(['checks', 'replay', 'fixtures/replays/dinner-service.json', '--json'])
      expect(replayed.code).toBe(0)
      const missing = await run(['checks', 'push', 't-pkg', '-f', 'fixtures/checks/no-such.json'])
      // a file that cannot be read is a wrong command line
      expect([missing.code, missing.stderr]).toEqual([
        2,
        expect.stringContaining('Cannot read fixtures/checks/no-such.json'),
      ])
      // and what to do about it
      expect(missing.stderr).toContain('Check the path')
    } finally {
      await rm(project, {recursive: true, force: true})
    }
  })

  it('creates a check, then answers unchanged for the same body', async () => {
    const first = await push(['t12', '--file', 'fixtures/checks/open.json'])
    expect(first.code).toBe(0)
    expect(first.stdout).toMatch(/^created chk_\w+ \(external id t12\)/)
    expect(first.stdout).toMatch(/Table 12\s+open\s+3 items\s+total 78\.65/)
    expect(first.stdout).toMatch(/Guest page http:\/\/127\.0\.0\.1:\d+\/t\//)

    const again = await push(['t12', '-f', 'fixtures/checks/open.json'])
    expect(again.code).toBe(0)
    expect(again.stdout).toMatch(/^unchanged /)
  })

  it('with --json prints the check resource and nothing else', async () => {
    const {code, stdout} = await push(['t12-json', '--file', 'fixtures/checks/open.json', '--json'])
    expect(code).toBe(0)
    const check = JSON.parse(stdout)
    expect(check).toMatchObject({
      object: 'check',
      external_id: 't12-json',
      location_id: 'loc_main',
      table: {number: '12'},
      status: 'open',
      version: 1,
      totals: {subtotal_cents: 7150, tax_cents: 715, total_cents: 7865},
      amount_due_cents: 7865,
    })
    expect(check.id).toMatch(/^chk_/)
    expect(check.items.map((i: {external_id: string}) => i.external_id)).toEqual([
      'line-1001',
      'line-1002',
      'line-1003',
    ])
    expect(check.created_at).toBe(check.updated_at)
  })

  it('reads the body from stdin, and a lower version afterwards is stale', async () => {
    await push(['t12-stdin', '-f', 'fixtures/checks/open.json'])
    const updated = await push(['t12-stdin'], fixture('updated'))
    expect(updated.code).toBe(0)
    expect(updated.stdout).toMatch(/^updated /)
    expect(updated.stdout).toContain('4 items')

    const stale = await push(['t12-stdin'], fixture('open'))
    expect(stale.code).toBe(0)
    expect(stale.stdout).toMatch(/^stale /)
    expect(stale.stdout).toContain('version 1 is older')
  })

  it('--location sets location_id: an unknown one is refused on that field', async () => {
    const {code, stdout} = await push([
      't12-loc',
      '-f',
      'fixtures/checks/open.json',
      '--location',
      'loc_nowhere',
      '--json',
    ])
    expect(code).toBe(1)
    expect(JSON.parse(stdout).error).toMatchObject({
      code: 'validation_failed',
      details: [expect.objectContaining({path: 'location_id'})],
    })
  })

  it('--table sets the table number of the body, so one sample serves every table', async () => {
    const {code, stdout} = await push(['t7-table', '-f', 'fixtures/checks/open.json', '--table', '7'])
    expect(code).toBe(0)
    expect(stdout).toMatch(/Table 7\s+open\s+3 items/)
    const long = await push(['t7-long', '-f', 'fixtures/checks/open.json', '--table', 'x'.repeat(33), '--json'])
    expect(long.code).toBe(1)
    expect(JSON.parse(long.stdout).error.details).toEqual([expect.objectContaining({path: 'table.number'})])
  })

  it('a bad payload exits 1 and shows the code and the failing field', async () => {
    const bad = {...JSON.parse(fixture('open')), totals: {subtotal_cents: 7150, tax_cents: 715, total_cents: 1}}
    const {code, stdout, stderr} = await push(['t12-bad'], JSON.stringify(bad))
    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toContain('Code: validation_failed')
    expect(stderr).toContain('totals.total_cents')
    expect(stderr).toMatch(/Request id: req_\w+/)
  })

  it('a bad payload with --json prints the API error body, and the next step', async () => {
    const bad = {...JSON.parse(fixture('open')), unknown_field: true}
    const {code, stdout} = await push(['t12-bad', '--json'], JSON.stringify(bad))
    expect(code).toBe(1)
    expect(JSON.parse(stdout)).toEqual({
      error: {
        code: 'validation_failed',
        message: expect.any(String),
        request_id: expect.stringMatching(/^req_/),
        details: expect.any(Array),
        suggestions: ['Fix the fields the error names and send the request again.'],
      },
    })
  })

  it('reads a --file that starts with a byte order mark, as Notepad and PowerShell write it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tablepay-bom-'))
    const file = join(dir, 'check.json')
    await writeFile(file, `\uFEFF${JSON.stringify(checkWith([['a', 1, 500]]))}`)
    const pushed = await push(['t12-bom', '--file', file, '--json'])
    await rm(dir, {recursive: true, force: true})
    expect([pushed.code, JSON.parse(pushed.stdout).external_id]).toEqual([0, 't12-bom'])
  })

  it('refuses input that is not a JSON object before calling the server, as a wrong command line (exit 2)', async () => {
    const broken = await push(['t12-bad'], '{"table":')
    expect(broken.code).toBe(2)
    expect(broken.stderr).toContain('stdin is not valid JSON')
    expect(broken.stderr).toContain('Code: invalid_json')

    const array = await push(['t12-bad', '--json'], '[]')
    expect(array.code).toBe(2)
    expect(JSON.parse(array.stdout).error.code).toBe('invalid_json')

    // JSON.parse takes it, but writing it out to send overflowed the stack
    const deep = await push(['t12-bad'], `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`)
    expect([deep.code, deep.stderr]).toEqual([2, expect.stringContaining('stdin nests deeper than 64 levels')])
    expect(deep.stderr).toContain('Code: invalid_json')
  })

  it('refuses empty stdin and an empty file as a wrong command line (exit 2, missing_input): nothing is sent', async () => {
    const empty = await push(['t12-empty'])
    expect(empty.code).toBe(2)
    expect(empty.stderr).toContain('stdin is empty: pass --file FILE, or pipe the JSON on stdin.')
    expect(empty.stderr).toContain('Code: missing_input')

    const json = await push(['t12-empty', '--json'], '  \n')
    expect(json.code).toBe(2)
    expect(JSON.parse(json.stdout).error).toMatchObject({
      code: 'missing_input',
      message: expect.stringContaining('empty'),
    })
    // an empty file was given: what it holds is wrong, as invalid JSON is
    const dir = await mkdtemp(join(tmpdir(), 'tablepay-empty-'))
    try {
      await writeFile(join(dir, 'empty.json'), '')
      const file = await push(['t12-empty', '-f', join(dir, 'empty.json')])
      expect([file.code, file.stderr]).toEqual([
        2,
        expect.stringContaining('empty.json is empty: put the JSON body in it.'),
      ])
    } finally {
      await rm(dir, {recursive: true, force: true})
    }
    expect((await runCommand(['checks', 'get', 't12-empty'], {env: server.env})).code).toBe(1)
  })

  it('refuses an empty --file (a variable left unset) as one, not as the package folder it named', async () => {
    const {code, stdout} = await push(['t12-nofile', '-f', '', '--json'])
    expect(code).toBe(2)
    expect(JSON.parse(stdout).error).toEqual({
      code: 'unreadable_input',
      message: 'The file path given is empty (is a variable unset?).',
      suggestions: ['Name the file, or pipe the JSON on stdin.'],
    })
  })

  it('with a read-only key, names the missing scope', async () => {
    const {code, stderr} = await runCommand(
      ['checks', 'push', 't12-ro', '-f', 'fixtures/checks/open.json', '-k', READ_KEY],
      {env: server.env},
    )
    expect(code).toBe(1)
    expect(stderr).toContain('Code: insufficient_scope')
    expect(stderr).toContain('write')
  })
})
