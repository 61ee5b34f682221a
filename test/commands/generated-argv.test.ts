import {readFileSync} from 'node:fs'
import {mkdir, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {afterAll, beforeAll, expect, test} from 'vitest'
import {exitCodesOf} from '../../src/cli/exit-codes.js'
import {type ApiServer, startApiServer} from '../helpers/api-server.js'
import {ROOT, runCommand} from '../helpers/cli.js'
import {manifestCommands} from '../helpers/manifest.js'
import {mulberry32, pickerOf} from '../helpers/random.js'
import {makeTempDir} from '../helpers/temp-dirs.js'

let server: ApiServer
let dir: string
beforeAll(async () => {
  server = await startApiServer()
  // the command lines run here, so a file one writes (`-o x`) lands in a temp dir, never in the repository
  dir = await makeTempDir()
  await mkdir(join(dir, 'a-dir'))
  await writeFile(join(dir, 'broken.json'), '{"items": [1, 2,')
  await writeFile(join(dir, 'check.json'), readFileSync(join(ROOT, 'fixtures', 'checks', 'open.json')))
})
afterAll(() => server.stop())

/** Command lines in the run: every command gets about six. */
const RUNS = 300

/** Not drawn: a server, a listener and the tails run until they are stopped. */
const LEFT_OUT = new Set(['serve', 'exec', 'listen', 'deliveries:tail', 'logs:tail'])

/** Values of every shape for a flag or an argument: numbers, durations, ids, URLs and files, good and bad. */
const VALUES = [
  '',
  ' ',
  '-',
  '0',
  '-1',
  '1e309',
  'NaN',
  'x'.repeat(3000),
  '😀',
  'é',
  '%',
  '1s',
  '99999d',
  '-5s',
  'chk_x',
  'loc_main',
  'demo',
  'check.created',
  '*',
  '{}',
  'null',
  '5',
  '100',
  'http://127.0.0.1:9/x',
  'ftp://x',
  'x',
  'missing/file.json',
  'a-dir',
  'broken.json',
  'check.json',
]

/** Whether `code` is one `codes` documents: a code, or within a range (`'3-255'`). */
const documents = (codes: [string, string][], code: number | null) =>
  codes.some(([documented]) => {
    const [low, high = low] = documented.split('-').map(Number)
    return code !== null && code >= low! && code <= high!
  })

/** What only a crash prints: a stack frame, or an error of the code rather than of the input. */
const CRASH = /\n\s+at \S.*:\d+:\d+\)?\n|\b(TypeError|RangeError|ReferenceError)\b/

test('every command, given flag and argument values of every shape, exits with a code its help documents and prints no stack', async () => {
  const commands = manifestCommands().filter(([id]) => !LEFT_OUT.has(id))
  const random = mulberry32(20_261_130)
  const pick = pickerOf(random)
  const wrong: string[] = []
  for (let i = 0; i < RUNS; i++) {
    const [id, command] = pick(commands)
    const argv = id.split(':')
    for (const _ of Object.keys(command.args ?? {})) if (random() < 0.9) argv.push(pick(VALUES))
    for (const [name, flag] of Object.entries(command.flags)) {
      if (name === 'help' || random() > 0.3) continue
      if (flag.type === 'boolean') argv.push(`--${name}`)
      else argv.push(`--${name}`, flag.options && random() < 0.6 ? pick(flag.options) : pick(VALUES))
    }
    const {code, stdout, stderr} = await runCommand(argv, {env: server.env, cwd: dir})
    const said = `tablepay ${argv.map((a) => a.slice(0, 40)).join(' ')} → ${code}\n${(stderr + stdout).slice(0, 600)}`
    if (!documents(exitCodesOf(command), code) || CRASH.test(stderr + stdout)) wrong.push(said)
  }
  expect(wrong).toEqual([])
})
