import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import type {Command} from '@oclif/core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type ApiServer, startApiServer} from '../helpers/api-server.js'
import {cliFor, ROOT, runCli, runCommand} from '../helpers/cli.js'
import {importGraph} from '../helpers/import-graph.js'

interface FlagSpec {
  name: string
  char?: string
  charAliases?: string[]
  aliases?: string[]
  hidden?: boolean
  helpGroup?: string
}

/** Every command's id and flags (its own and the base command's), read from the command classes. */
async function commandFlags(): Promise<[id: string, flags: FlagSpec[]][]> {
  const dir = join(ROOT, 'src', 'commands')
  const files = readdirSync(dir, {recursive: true, encoding: 'utf8'}).filter((f) => f.endsWith('.ts'))
  return Promise.all(
    files.map(async (file) => {
      const command = (await import(pathToFileURL(join(dir, file)).href)).default as typeof Command
      const flags = {...command.baseFlags, ...command.flags} as Record<string, Omit<FlagSpec, 'name'>>
      const id = file.replace(/\.ts$/, '').replaceAll('/', ' ')
      return [id, Object.entries(flags).map(([name, f]) => ({name, ...f}))] as [string, FlagSpec[]]
    }),
  )
}

let commands: [string, FlagSpec[]][]
beforeAll(async () => {
  commands = await commandFlags()
})

describe('one name for one thing (README "Flags")', () => {
  it('a short flag means the same flag in every command', () => {
    const meanings = new Map<string, Set<string>>()
    for (const [, flags] of commands) {
      for (const flag of flags) {
        for (const char of [flag.char, ...(flag.charAliases ?? [])].filter(Boolean) as string[]) {
          meanings.set(char, (meanings.get(char) ?? new Set()).add(flag.name))
        }
      }
    }
    const reused = [...meanings].filter(([, names]) => names.size > 1).map(([char, names]) => `-${char}: ${[...names]}`)
    expect(reused).toEqual([])
  })

  it('--url is the tablepay server wherever it is shown', () => {
    const otherUrl = (f: FlagSpec) => f.name === 'url' && !f.hidden && f.helpGroup !== 'CONNECTION'
    const other = commands.filter(([, flags]) => flags.some(otherUrl)).map(([id]) => id)
    expect(other).toEqual([])
  })

  it("the receiver's URL is --forward-to in every command that takes one", () => {
    const withReceiver = commands.filter(([, flags]) => flags.some((f) => f.name === 'forward-to')).map(([id]) => id)
    expect(withReceiver.sort()).toEqual([
      'listen',
      'receiver check',
      'scenario run',
      'sign',
      'webhooks create',
      'webhooks update',
    ])
  })

  it('the event-type filter is --event-type (-e) everywhere, --events and --type its hidden old names', () => {
    const filters = commands.flatMap(([id, flags]) =>
      flags.filter((f) => ['event-type', 'events', 'type'].includes(f.name)).map((f) => [id, f] as const),
    )
    expect(filters.map(([id]) => id).sort()).toEqual(['events list', 'listen', 'webhooks create', 'webhooks update'])
    for (const [, flag] of filters) {
      expect(flag).toMatchObject({name: 'event-type', char: 'e', aliases: ['events', 'type']})
    }
  })

  it('a check is --check (-c) everywhere, read by the one definition that takes a chk_ id or a POS id', async () => {
    const {checkFlag} = await import('../../src/cli/check-ref.js')
    const {parse} = checkFlag()
    const checks = commands.flatMap(([id, flags]) =>
      flags.filter((f) => f.name === 'check').map((f) => [id, f] as const),
    )
    expect(checks.map(([id]) => id).sort()).toEqual([
      'logs list',
      'logs tail',
      'trigger claim',
      'trigger feedback',
      'trigger payment',
    ])
    for (const [, flag] of checks) expect(flag).toMatchObject({char: 'c', parse})
  })
})

describe('old names still work', () => {
  let server: ApiServer
  beforeAll(async () => {
    server = await startApiServer()
  })
  afterAll(() => server.stop())

  it('events list --type and --events filter like --event-type', async () => {
    const {json} = cliFor(server)
    await json(['checks', 'push', 'flags-1', '-f', 'fixtures/checks/open.json'])
    const types = async (flag: string) => {
      const page = await json(['events', 'list', flag, 'check.created'])
      return new Set(page.data.map((e: {type: string}) => e.type))
    }
    for (const flag of ['--event-type', '--type', '--events', '-e']) {
      expect(await types(flag)).toEqual(new Set(['check.created']))
    }
  })

  it("webhooks create takes the receiver's URL as an argument too", async () => {
    const args = ['webhooks', 'create', 'http://localhost:3000/hooks', '--events', 'check.closed']
    const endpoint = await cliFor(server).json(args)
    expect(endpoint).toMatchObject({url: 'http://localhost:3000/hooks', event_types: ['check.closed']})
  })
})

const RECEIVER = 'http://localhost:3000/hooks'

describe('a bad command line exits 2 with and without --json', () => {
  it.each([
    ['a value outside the choices', ['events', 'list', '--event-type', 'check.eaten']],
    ['an unknown flag', ['checks', 'list', '--bogus']],
    ['an unknown command', ['checks', 'lsit']],
    ['a flag value its parser refuses', ['webhooks', 'create', '--forward-to', RECEIVER, '-e', 'check.eaten']],
    ['a bad argument', ['clock', 'advance', '0']],
    ['a --forward-to that is no URL (webhooks create)', ['webhooks', 'create', '--forward-to', 'localhost:3000']],
    ['a --forward-to that is no URL (webhooks update)', ['webhooks', 'update', 'we_x', '--forward-to', 'hooks']],
    ['a --forward-to that is no URL (listen)', ['listen', '--forward-to', '3000/hooks']],
    [
      'a chaos setting given twice (listen)',
      ['listen', '--forward-to', RECEIVER, '--chaos', 'duplicate=0.5,duplicate=0'],
    ],
    ['a --timeout longer than a timer waits', ['checks', 'list', '--timeout', '30d']],
    // every route would go after the query, and be answered the dashboard
    ['a --url with a query', ['checks', 'list', '--url', 'http://127.0.0.1:4747/?x=1']],
    ['a --url with a fragment', ['checks', 'list', '--url', 'http://127.0.0.1:4747#top']],
    ['a --receiver-timeout longer than a timer waits', ['serve', '--receiver-timeout', '30d']],
    ['a --seed that is not there (serve)', ['serve', '--memory', '--seed', 'no-such-seed.json']],
    ['an empty --location (checks push)', ['checks', 'push', 't1', '--location', '']],
    // a data dir it cannot make: taken, the value would fail the start instead (exit 2, server_start_failed)
    [
      'an empty --host (serve), which would listen on 127.0.0.1 alone',
      ['serve', '--data', 'package.json/x', '--host', ''],
    ],
    [
      'a --max-events past a safe integer (serve)',
      ['serve', '--data', 'package.json/x', '--max-events', '99999999999999999999'],
    ],
    [
      'a --since further back than a date reaches (listen)',
      ['listen', '--forward-to', RECEIVER, '--since', '999999999d'],
    ],
    ['a --since further back than a date reaches (recover)', ['webhooks', 'recover', 'we_x', '--since', '999999999d']],
    [
      '--url in receiver check (the receiver is --forward-to)',
      ['receiver', 'check', '--url', RECEIVER, '--secret', 'whsec_x'],
    ],
  ])('%s', async (_, args) => {
    const [text, json] = await Promise.all([runCommand(args), runCommand([...args, '--json'])])
    expect(text.code).toBe(2)
    expect(json.code).toBe(2)
    expect(JSON.parse(json.stdout).error).toMatchObject({code: 'invalid_usage'})
    // printed as every other error, a flag's own refusal too: each line marked as the error's (the usage after it aside)
    const error = text.stderr.split('\n\n')[0]!.trimEnd().split('\n')
    expect(error.filter((line) => !line.startsWith(' ›'))).toEqual([])
  })

  it.each([
    ['a choice (oclif refuses it)', ['checks', 'list', '--status', 'x'.repeat(300)]],
    ['an integer (oclif refuses it)', ['checks', 'list', `--limit=${'9'.repeat(300)}`]],
    [
      'a key (a flag refuses it)',
      ['trigger', 'claim', '-c', 't1', '--item', 'a', '--idempotency-key', 'k'.repeat(300)],
    ],
  ])('a value past 100 characters, %s, is quoted up to its first 100, with how many it had', async (_, args) => {
    const {code, stdout} = await runCommand([...args, '--json'])
    expect(code).toBe(2)
    const {message} = JSON.parse(stdout).error
    const value = args.at(-1)!.replace(/^--limit=/, '')
    expect(message).toContain(`"${value.slice(0, 100)}…" (300 characters)`)
    expect(message).not.toContain(value.slice(0, 101))
  })

  it('names the flag once in its own refusal: an empty --chaos (listen)', async () => {
    const {code, stderr} = await runCommand(['listen', '--forward-to', RECEIVER, '--chaos', ''])
    expect(code).toBe(2)
    expect(stderr).toContain('--chaos: give at least one of duplicate=P, reorder=DURATION')
    expect(stderr).not.toContain('--chaos: --chaos')
  })

  it('every command refuses a flag it does not have, naming it', async () => {
    const refused = []
    for (const [id] of commands) {
      // exec's own flags come before the -- that starts its command
      const {code, stderr} = await runCommand([
        ...id.split(' '),
        '--no-such-flag',
        ...(id === 'exec' ? ['--', 'true'] : []),
      ])
      if (code !== 2 || !stderr.includes('--no-such-flag')) refused.push([id, code])
    }
    expect(refused).toEqual([])
  })

  it("a refused value is one line naming the flag, and the command's help a suggestion", async () => {
    const [text, json] = await Promise.all([
      runCommand(['checks', 'list', '-n', '0']),
      runCommand(['checks', 'list', '-n', '0', '--json']),
    ])
    const message = '--limit: Expected an integer greater than or equal to 1 but received: 0'
    expect(JSON.parse(json.stdout).error).toEqual({
      code: 'invalid_usage',
      message,
      suggestions: ['See `tablepay checks list --help`.'],
    })
    // oclif's lists of what it refused are one line too
    const lists = [
      // a flag named as it is typed
      [['trigger', 'refund'], 'Missing required flag --payment'],
      [['faults', 'add', '--reset', '--status', '503'], '--status=503 cannot also be provided when using --reset'],
      [['checks', 'get'], 'Missing 1 required arg: ID (The check: its id (chk_…) or the POS id it was pushed under.)'],
      // what the user typed is quoted as typed, two spaces and all
      [['checks', 'list', '--limit', '1  2'], '--limit: Expected an integer but received: 1  2'],
    ]
    for (const [args, listed] of lists) {
      const {error} = JSON.parse((await runCommand([...args!, '--json'])).stdout)
      expect(error.message).toBe(listed)
    }
    // at 80 columns, as outside a terminal, oclif wraps an argument's description over lines of its own
    const wrapped = await runCli(['checks', 'lint', '--json'], {env: {OCLIF_COLUMNS: '80'}})
    expect(JSON.parse(wrapped.stdout).error.message).toBe(
      'Missing 1 required arg: FILE (JSON file: a push body or a replay scenario. Give several (a glob the shell expands works); - reads stdin, once.)',
    )
    // every line of the human error is marked as the error's, none indented with a tab
    const lines = text.stderr.trimEnd().split('\n')
    expect(lines.every((line) => line.startsWith(' ›   '))).toBe(true)
    expect(lines.map((line) => line.slice(5).trimEnd()).join(' ')).toContain(`Error: ${message}`)
    // with its code, as every other error prints it
    expect(text.stderr).toContain('Code: invalid_usage')
  })

  it.each([
    [['clock', 'advance', 'xyz'], 'See `tablepay clock advance --help`.'],
    [['webhooks', 'update', 'we_1'], 'See `tablepay webhooks update --help`.'],
    [['faults', 'add', '--path', '/v1/checks'], 'See `tablepay faults add --help`.'],
    [['trigger', 'payment', '--check', 'chk_1', '--idempotency-key', 'k1'], 'See `tablepay trigger payment --help`.'],
    // past the integers a number holds exactly: signed with, it would throw
    [
      [
        'sign',
        '-s',
        'whsec_abcdefghijklmnopqrstuvwxyz12',
        '-p',
        'fixtures/checks/open.json',
        '-t',
        '1'.padEnd(20, '0'),
      ],
      'See `tablepay sign --help`.',
    ],
    [
      ['verify', '-s', 'whsec_abcdefghijklmnopqrstuvwxyz12', '-H', 't=1,v1=00', '--tolerance', '9007199254740993'],
      'See `tablepay verify --help`.',
    ],
    // an empty filter or id (a variable unset) would match nothing, or name nothing
    [['deliveries', 'list', '--endpoint', ''], 'See `tablepay deliveries list --help`.'],
    [['logs', 'list', '--path', ''], 'See `tablepay logs list --help`.'],
    [['checks', 'list', '--starting-after', ''], 'See `tablepay checks list --help`.'],
    [['openapi', '--output', ''], 'See `tablepay openapi --help`.'],
    [['faults', 'add', '--path', '', '--status', '503'], 'See `tablepay faults add --help`.'],
    // a path pattern the server would refuse (422) is refused by its own rules first
    [['faults', 'add', '--path', 'v1/*', '--status', '503'], 'See `tablepay faults add --help`.'],
    [['logs', 'list', '--path', '/v1/**/claims'], 'See `tablepay logs list --help`.'],
    // a match no route takes, by its path or its method
    [['faults', 'add', '--path', '/v1/chekcs/*', '--status', '503'], 'See `tablepay faults add --help`.'],
    [
      ['faults', 'add', '--method', 'PUT', '--path', '/v1/locations', '--status', '503'],
      'See `tablepay faults add --help`.',
    ],
    [['checks', 'push', 't1', '-f', 'fixtures/checks/open.json', '-l', ''], 'See `tablepay checks push --help`.'],
    // an Idempotency-Key the server would refuse (422) once the check was read
    [
      ['trigger', 'payment', '-c', 't1', '--amount', '1', '--idempotency-key', ''],
      'See `tablepay trigger payment --help`.',
    ],
    [['trigger', 'claim', '-c', 't1', '-i', 'a', '--idempotency-key', 'a b'], 'See `tablepay trigger claim --help`.'],
    // a refusal with a hint of its own keeps it alone
    [['snapshots', 'save', 'bad name!'], 'Name it like lunch-rush or ci_base.'],
  ])('%j: a command line the command refuses says what to do, before any server is looked for', async (args, hint) => {
    const {code, stdout} = await runCommand([...args, '--json'])
    expect(code).toBe(2)
    expect(JSON.parse(stdout).error).toMatchObject({code: 'invalid_usage', suggestions: [hint]})
  })

  it.each(['checks/push', 'checks/list', 'logs/list'])(
    '%s checks its flags without loading zod, which would cost its start some 100 ms: --path patterns too',
    (command) => {
      expect(importGraph(`dist/commands/${command}.js`).packages).not.toContain('zod')
    },
  )

  it('an unknown flag gets the nearest flag the command takes, its own, a connection flag or --json', async () => {
    for (const [args, meant] of [
      [['checks', 'list', '--jsn'], '--json'],
      [['checks', 'push', 't12', '--fle', 'x.json'], '--file'],
      [['checks', 'list', '--tiemout', '5s'], '--timeout'],
      [['serve', '--prot', '5000'], '--port'],
    ] as const) {
      const {code, stderr} = await runCommand([...args])
      expect([code, stderr], args.join(' ')).toEqual([2, expect.stringContaining(`Did you mean ${meant}?`)])
    }
    // nothing near: only where the flags are listed
    const far = await runCommand(['checks', 'list', '--zzzzzz'])
    expect(far.code).toBe(2)
    expect(far.stderr).not.toContain('Did you mean')
    expect(far.stderr).toContain('See `tablepay checks list --help`.')
  })

  it('an unknown command is named as typed, with the nearest command and where the list is', async () => {
    const {code, stdout, stderr} = await runCommand(['chekcs', 'list'])
    expect(code).toBe(2)
    expect(stdout).toBe('')
    expect(stderr).toContain('"tablepay chekcs list" is not a command.')
    expect(stderr).toContain('Did you mean `tablepay checks list`?')
    expect(stderr).toContain('`tablepay --help` lists the commands.')
    const inTopic = await runCommand(['deliveries', 'tial'])
    expect(inTopic.stderr).toContain('Did you mean `tablepay deliveries tail`?')
    expect(inTopic.stderr).toContain('`tablepay deliveries --help` lists the commands.')
    const help = await runCommand(['help', 'checks', 'lsit'])
    expect(help.code).toBe(2)
    expect(help.stderr).toContain('"tablepay checks lsit" is not a command.')
    expect(help.stderr).toContain('`tablepay checks --help` lists the commands.')
    // nothing near: only where the list is
    const far = await runCommand(['frobnicate', '--json'])
    expect(far.code).toBe(2)
    expect(far.stderr).toBe('')
    expect(JSON.parse(far.stdout).error).toEqual({
      code: 'invalid_usage',
      message: '"tablepay frobnicate" is not a command.',
      suggestions: ['`tablepay --help` lists the commands.'],
    })
    // --json alone, which oclif reads as the command
    const flagOnly = await runCommand(['--json'])
    expect(flagOnly.code).toBe(2)
    expect(flagOnly.stderr).toBe('')
    expect(JSON.parse(flagOnly.stdout).error).toMatchObject({
      code: 'invalid_usage',
      message: '"tablepay --json": a command comes first, then its flags (tablepay checks list --json).',
    })
  })

  it('with --json, an unknown command or group keeps its hint: the nearest command, or group, and where the list is', async () => {
    const [group, command] = await Promise.all([
      runCommand(['chekcs', '--json']),
      runCommand(['checks', 'lsit', '--json']),
    ])
    expect([group.code, command.code]).toEqual([2, 2])
    expect(JSON.parse(group.stdout).error).toEqual({
      code: 'invalid_usage',
      message: '"tablepay chekcs" is not a command.',
      suggestions: ['Did you mean `tablepay checks`?', '`tablepay --help` lists the commands.'],
    })
    expect(JSON.parse(command.stdout).error).toEqual({
      code: 'invalid_usage',
      message: '"tablepay checks lsit" is not a command.',
      suggestions: ['Did you mean `tablepay checks list`?', '`tablepay checks --help` lists the commands.'],
    })
    // the same hints as without --json
    expect((await runCommand(['chekcs'])).stderr).toContain('Did you mean `tablepay checks`?')
  })

  it('help shows the help of the CLI, a topic or a command, as --help does', async () => {
    for (const named of [[], ['checks'], ['checks', 'push']]) {
      const help = await runCommand(['help', ...named])
      expect(help.code).toBe(0)
      expect(help.stdout).toBe((await runCommand([...named, '--help'])).stdout)
    }
    expect((await runCommand(['help'])).stdout).toContain('$ tablepay [COMMAND]')
  })

  it('a topic given flags exits 2 naming its commands; a bare topic or --help still shows its help', async () => {
    const {code, stdout, stderr} = await runCommand(['checks', '--limit', '3'])
    expect(code).toBe(2)
    expect(stdout).toBe('')
    expect(stderr).toContain(
      '"tablepay checks" is a group of commands: checks get, checks lint, checks list, checks push, checks replay.',
    )
    expect(stderr).toContain('`tablepay checks --help` says what each does.')
    // a script reads the error body, not help text, as it does for an unknown command
    const json = await runCommand(['webhooks', '--json'])
    expect(json.code).toBe(2)
    expect(json.stderr).toBe('')
    expect(JSON.parse(json.stdout).error).toEqual({
      code: 'invalid_usage',
      message: expect.stringMatching(/^"tablepay webhooks" is a group of commands: webhooks chaos, webhooks create, /),
      suggestions: ['Run one of them; `tablepay webhooks --help` says what each does.'],
    })
    for (const args of [['checks'], ['checks', '--help']]) {
      const help = await runCommand(args)
      expect(help.code).toBe(0)
      expect(help.stdout).toContain('$ tablepay checks COMMAND')
    }
  })

  it('--version --json (either order, or -v) prints the version as JSON; --version alone, as text', async () => {
    const {version} = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
    for (const args of [
      ['--version', '--json'],
      ['--json', '--version'],
      ['-v', '--json'],
    ]) {
      const json = await runCli(args)
      expect(json.code, args.join(' ')).toBe(0)
      expect(JSON.parse(json.stdout)).toEqual({
        name: 'tablepay',
        version,
        node: process.version,
        platform: process.platform,
        arch: process.arch,
      })
    }
    const text = await runCli(['--version'])
    expect(text.stdout).toBe(`tablepay/${version} ${process.platform}-${process.arch} node-${process.version}\n`)
  })

  it('an argument to a command that takes none is named as such, not as an unknown command', async () => {
    const {code, stderr} = await runCommand(['clock', 'show', 'now'])
    expect(code).toBe(2)
    expect(stderr).toContain('Unexpected argument: now. "tablepay clock show" takes none.')
    const json = await runCommand(['checks', 'list', 'extra', '--json'])
    expect(json.code).toBe(2)
    expect(JSON.parse(json.stdout).error).toEqual({
      code: 'invalid_usage',
      message: 'Unexpected argument: extra. "tablepay checks list" takes none.',
      suggestions: ['See `tablepay checks list --help`.'],
    })
  })

  it('an id given as an argument to a command whose flag takes it names that flag, with the line to run', async () => {
    const {code, stderr} = await runCommand(['trigger', 'refund', 'pay_123', '-a', '5'])
    expect(code).toBe(2)
    expect(stderr.replaceAll(/\s*\n ›\s*/g, ' ')).toContain(
      'Unexpected argument: pay_123. "tablepay trigger refund" takes it with --payment: tablepay trigger refund --payment pay_123 -a 5',
    )
    // an id no flag of it takes: it takes none
    expect((await runCommand(['trigger', 'refund', 'chk_123'])).stderr).toContain('takes none.')
    // one argument too many for a command that takes one
    const resend = await runCommand(['events', 'resend', 'evt_1', 'we_2', '--json'])
    expect(resend.code).toBe(2)
    expect(JSON.parse(resend.stdout).error).toMatchObject({
      message: 'Unexpected argument: we_2',
      suggestions: ['Pass we_2 with --endpoint.', 'See `tablepay events resend --help`.'],
    })
  })

  it('-v prints the version, as --version does', async () => {
    const short = await runCommand(['-v'])
    expect(short.code).toBe(0)
    expect(short.stdout).toMatch(/^tablepay\/\d+\.\d+\.\d+ /)
    expect(short.stdout).toBe((await runCommand(['--version'])).stdout)
  })

  it('a --forward-to that is no URL is named, with an example, before any request', async () => {
    const {code, stderr} = await runCommand(['webhooks', 'create', '--forward-to', 'localhost:3000'])
    expect(code).toBe(2)
    expect(stderr).toContain('--forward-to: ')
    expect(stderr).toContain(
      '"localhost:3000" is not an http(s) URL: give your receiver\'s, e.g. http://localhost:3000/webhooks',
    )
  })

  it('a --forward-to no endpoint may hold is named with what to write, before any request, in every command', async () => {
    const uri = 'must be a URI (RFC 3986, the format the API document gives it): percent-encode a space'
    for (const command of [['webhooks', 'create'], ['listen'], ['webhooks', 'update', 'we_x'], ['receiver', 'check']]) {
      const {code, stderr} = await runCommand([...command, '--forward-to', 'http://localhost:9/a b'])
      expect([command.join(' '), code]).toEqual([command.join(' '), 2])
      expect(stderr).toContain(`--forward-to: "http://localhost:9/a b" ${uri}`)
    }
    // the URL as the argument it was before --forward-to
    const {code, stderr} = await runCommand(['webhooks', 'create', 'http://localhost:9/a{b}'])
    expect([code, stderr]).toEqual([2, expect.stringContaining(`"http://localhost:9/a{b}" ${uri}`)])
  })

  it('receiver check --url names --forward-to', async () => {
    const {stderr} = await runCommand(['receiver', 'check', '--url', 'http://localhost:3000/hooks'])
    expect(stderr).toContain("receiver check takes your receiver's URL as --forward-to http://localhost:3000/hooks")
  })
})
