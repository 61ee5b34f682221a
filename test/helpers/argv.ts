/** Command lines drawn at random from a command's manifest, and what only a crash prints: the generated-argv tests. */
import {readFileSync} from 'node:fs'
import {mkdir, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {afterAll, beforeAll} from 'vitest'
import {type ApiServer, startApiServer} from './api-server.js'
import {ROOT} from './cli.js'
import type {ManifestCommand} from './manifest.js'
import {pickerOf} from './random.js'
import {makeTempDir} from './temp-dirs.js'

/** Values of every shape for a flag or an argument: numbers, durations, ids, URLs and files, good and bad. */
export const VALUES = [
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

/** Whether `code` is one `codes` documents: a code, or within a range (`'3-255'`, `'128+N'`). */
export const documents = (codes: [string, string][], code: number | null) =>
  codes.some(([documented]) => {
    const [low, high = low] = documented.replace('+N', '-255').split('-').map(Number)
    return code !== null && code >= low! && code <= high!
  })

/** What only a crash prints: a stack frame, or an error of the code rather than of the input. */
export const CRASH = /\n\s+at \S.*:\d+:\d+\)?\n|\b(TypeError|RangeError|ReferenceError)\b/

/**
 * A command line for command `id`: each argument given 9 times in 10, and each flag but `help` and those in
 * `leave` with the chance `often` (3 in 10 unless given), its value one of its options (6 times in 10, when it
 * has them) or of `VALUES`.
 */
export function drawArgv(
  id: string,
  command: ManifestCommand,
  random: () => number,
  {leave = [], often = 0.3}: {leave?: readonly string[]; often?: number} = {},
): string[] {
  const pick = pickerOf(random)
  const argv = id.split(':')
  for (const _ of Object.keys(command.args ?? {})) if (random() < 0.9) argv.push(pick(VALUES))
  for (const [name, flag] of Object.entries(command.flags)) {
    if (name === 'help' || leave.includes(name) || random() > often) continue
    if (flag.type === 'boolean') argv.push(`--${name}`)
    else argv.push(`--${name}`, flag.options && random() < 0.6 ? pick(flag.options) : pick(VALUES))
  }
  return argv
}

/** The commands that run until they are stopped: generated-running-argv.test.ts draws them, generated-argv.test.ts every other. */
export const RUNNING = ['serve', 'exec', 'listen', 'deliveries:tail', 'logs:tail']

/**
 * Where a file's drawn command lines run, set up before its tests and stopped after them: a server for them to
 * talk to, and a temp dir holding the files `VALUES` names (a file one writes, `-o x`, lands there, never in the
 * repository).
 */
export function argvSetting(): {server: ApiServer; dir: string} {
  const setting = {} as {server: ApiServer; dir: string}
  beforeAll(async () => {
    setting.server = await startApiServer()
    setting.dir = await makeTempDir()
    await mkdir(join(setting.dir, 'a-dir'))
    await writeFile(join(setting.dir, 'broken.json'), '{"items": [1, 2,')
    await writeFile(join(setting.dir, 'check.json'), readFileSync(join(ROOT, 'fixtures', 'checks', 'open.json')))
  })
  afterAll(() => setting.server.stop())
  return setting
}
