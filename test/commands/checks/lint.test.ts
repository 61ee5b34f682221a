import {once} from 'node:events'
import {readFileSync} from 'node:fs'
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {ROOT, runCommand, spawnCli} from '../../helpers/cli.js'
import {importGraph} from '../../helpers/import-graph.js'

const open = () => JSON.parse(readFileSync(join(ROOT, 'fixtures', 'checks', 'open.json'), 'utf8'))

describe('checks lint', () => {
  let dir: string
  let bad: string
  let broken: string
  let badScenario: string

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tablepay-lint-'))
    bad = join(dir, 'bad.json')
    const body = open()
    body.status = 'paid'
    body.items[1].price_cents = 12.5
    body.items[2].colour = 'red'
    body.totals.total_cents = 1
    await writeFile(bad, JSON.stringify(body))
    broken = join(dir, 'broken.json')
    await writeFile(broken, '{"table": {"number": "12"},')
    badScenario = join(dir, 'scenario.json')
    await writeFile(
      badScenario,
      JSON.stringify({
        pushes: [
          {external_id: 't1', body: open()},
          {external_id: 't1', body: {...open(), version: 0}},
        ],
      }),
    )
  })

  afterAll(() => rm(dir, {recursive: true, force: true}))

  it('passes every fixture, push bodies and scenarios, several files at once: exit 0, no server', async () => {
    const {code, stdout} = await runCommand([
      'checks',
      'lint',
      'fixtures/checks/open.json',
      'fixtures/checks/updated.json',
      'fixtures/checks/closed.json',
      'fixtures/replays/dinner-service.json',
    ])
    expect(code).toBe(0)
    expect(stdout.trim().split('\n')).toEqual([
      'fixtures/checks/open.json: ok',
      'fixtures/checks/updated.json: ok',
      'fixtures/checks/closed.json: ok',
      'fixtures/replays/dinner-service.json: ok',
    ])
  })

  it('prints every problem with its jq path, and exits 1', async () => {
    const {code, stdout, stderr} = await runCommand(['checks', 'lint', bad, 'fixtures/checks/open.json'])
    expect(code).toBe(1)
    expect(stdout).toContain(`${bad}: .status: `)
    expect(stdout).toContain(`${bad}: .items[1].price_cents: `)
    expect(stdout).toContain(`${bad}: .items[2].colour: unknown field`)
    expect(stdout).toContain(`${bad}: .totals.total_cents: must equal subtotal_cents + tax_cents`)
    expect(stdout).toContain('fixtures/checks/open.json: ok')
    expect(stderr).toContain('4 problems in 1 of 2 files.')
    expect(stderr).toContain('Code: lint_failed')
  })

  it('checks each push of a scenario, with the path inside the scenario', async () => {
    const {code, stdout} = await runCommand(['checks', 'lint', badScenario])
    expect(code).toBe(1)
    expect(stdout).toMatch(/: \.pushes\[1\]\.body\.version: Too small/)
  })

  it('reports a file that is not JSON, or missing, and still checks the others', async () => {
    const {code, stdout} = await runCommand([
      'checks',
      'lint',
      broken,
      join(dir, 'missing.json'),
      'fixtures/checks/open.json',
    ])
    expect(code).toBe(1)
    expect(stdout).toContain(`${broken}: .: not valid JSON`)
    expect(stdout).toContain(`${join(dir, 'missing.json')}: .: cannot read the file: ENOENT`)
    expect(stdout).toContain('fixtures/checks/open.json: ok')
  })

  it('reads stdin for - among the files, reported as -, a scenario as a file is', async () => {
    const input = readFileSync(bad, 'utf8')
    const {code, stdout} = await runCommand(['checks', 'lint', 'fixtures/checks/open.json', '-'], {input})
    expect(code).toBe(1)
    expect(stdout).toContain('fixtures/checks/open.json: ok')
    expect(stdout).toContain('-: .items[2].colour: unknown field')

    const scenario = readFileSync(join(ROOT, 'fixtures/replays/dinner-service.json'), 'utf8')
    const json = await runCommand(['checks', 'lint', '-', '--json'], {input: scenario})
    expect([json.code, JSON.parse(json.stdout)]).toEqual([
      0,
      {valid: true, files: [{file: '-', kind: 'scenario', valid: true, problems: []}]},
    ])
  })

  it('does not take piped JSON for a FILE left out: exit 2, saying FILE is missing', async () => {
    const input = readFileSync(join(ROOT, 'fixtures/checks/open.json'), 'utf8')
    const {code, stdout, stderr} = await runCommand(['checks', 'lint'], {input})
    expect(code).toBe(2)
    expect(stderr).toContain('Missing 1 required arg')
    expect(stdout).toBe('')
  })

  it('refuses - with empty stdin, or - twice, as a wrong command line: exit 2, nothing checked', async () => {
    const empty = await runCommand(['checks', 'lint', 'fixtures/checks/open.json', '-', '--json'], {input: ''})
    expect(empty.code).toBe(2)
    expect(JSON.parse(empty.stdout).error).toMatchObject({
      code: 'missing_input',
      message: 'stdin is empty: pass a file instead of -, or pipe the JSON on stdin.',
    })

    const twice = await runCommand(['checks', 'lint', '-', '-', '--json'], {input: JSON.stringify(open())})
    expect(twice.code).toBe(2)
    expect(JSON.parse(twice.stdout).error).toMatchObject({
      code: 'invalid_usage',
      message: expect.stringContaining('more than once'),
    })
  })

  it("prints a file's name, and what JSON.parse quotes of it, with their control characters escaped", async () => {
    // a name that turns the terminal red, holding text that clears the screen and sets the title
    const hostile = join(dir, 'a\u001b[31mb.json')
    await writeFile(hostile, '\u001b[2J\u001b]0;pwned\u0007{')
    const {code, stdout} = await runCommand(['checks', 'lint', hostile])
    expect(code).toBe(1)
    // eslint-disable-next-line no-control-regex -- matching control characters is the point
    expect(stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/)
    expect(stdout).toContain(`${join(dir, 'a\\u001b[31mb.json')}: .: not valid JSON`)
    expect(stdout).toContain('\\u001b]0;pwned\\u0007')
  })

  it('names a byte order mark first, which the server refuses too', async () => {
    const marked = join(dir, 'marked.json')
    await writeFile(marked, `\uFEFF${JSON.stringify(open())}`)
    const {code, stdout} = await runCommand(['checks', 'lint', marked])
    expect(code).toBe(1)
    expect(stdout).toContain(`${marked}: .: not valid JSON: it starts with a byte order mark (U+FEFF)`)
  })

  it('with --json prints the report, the same shape whether it passes or fails', async () => {
    const failed = await runCommand(['checks', 'lint', bad, 'fixtures/checks/open.json', '--json'])
    expect(failed.code).toBe(1)
    const report = JSON.parse(failed.stdout)
    expect(report.valid).toBe(false)
    expect(report.files).toHaveLength(2)
    expect(report.files[0]).toMatchObject({file: bad, kind: 'push', valid: false})
    expect(report.files[0].problems).toContainEqual({path: '.items[2].colour', message: 'unknown field'})
    expect(report.files[1]).toEqual({file: 'fixtures/checks/open.json', kind: 'push', valid: true, problems: []})

    const passed = await runCommand(['checks', 'lint', 'fixtures/replays/dinner-service.json', '--json'])
    expect(passed.code).toBe(0)
    expect(JSON.parse(passed.stdout)).toEqual({
      valid: true,
      files: [{file: 'fixtures/replays/dinner-service.json', kind: 'scenario', valid: true, problems: []}],
    })
  })

  it("validates with the server's own schemas and loads no server, storage or HTTP client code", () => {
    const {files, packages} = importGraph('dist/commands/checks/lint.js')
    expect(files).toContain('domain/schemas.js')
    expect(packages.filter((p) => !['@oclif/core', 'zod', 'chalk'].includes(p))).toEqual([])
    expect(files.filter((f) => /^(server|store|webhooks)\/|^client\/(client|config|index)\.js$/.test(f))).toEqual([])
  })

  it('a report longer than a pipe holds, read only once the error is out, reaches its reader whole before the exit', async () => {
    // 500 items of 3 problems each, twice: about 250 KiB of report, four times what a pipe holds
    const body = {
      ...open(),
      items: Array.from({length: 500}, (_, i) => ({external_id: `l${i}`, name: '', quantity: -1, price_cents: 'x'})),
    }
    const file = join(dir, 'long.json')
    await writeFile(file, JSON.stringify(body))
    const child = spawnCli(['checks', 'lint', file, file])
    child.stdin!.end()
    // stdout stays unread until the error is printed: what the pipe has not taken by then is still to be written
    let stderr = ''
    const errorOut = new Promise<void>((resolve) =>
      child.stderr!.on(
        'data',
        (chunk: Buffer) => (stderr += chunk) && stderr.includes('Code: lint_failed') && resolve(),
      ),
    )
    const closed = once(child, 'close')
    await errorOut
    const out: Buffer[] = []
    child.stdout!.on('data', (chunk: Buffer) => out.push(chunk))
    const [code] = await closed
    expect(code).toBe(1)
    const lines = Buffer.concat(out).toString().trimEnd().split('\n')
    expect(lines).toHaveLength(2 * 3 * 500)
    expect(lines.at(-1)).toBe(`${file}: .items[499].price_cents: Invalid input: expected number, received string`)
  })
})
