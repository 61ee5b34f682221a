import {afterAll, beforeAll, expect, test} from 'vitest'
import {exitCodesOf} from '../../src/cli/exit-codes.js'
import {type ApiServer, startApiServer} from '../helpers/api-server.js'
import {argvDir, CRASH, documents, drawArgv} from '../helpers/argv.js'
import {runCommand} from '../helpers/cli.js'
import {manifestCommands} from '../helpers/manifest.js'
import {mulberry32, pickerOf} from '../helpers/random.js'

let server: ApiServer
let dir: string
beforeAll(async () => {
  server = await startApiServer()
  dir = await argvDir()
})
afterAll(() => server.stop())

/** Command lines in the run: every command gets about six. */
const RUNS = 300

/** Not drawn here: a server, a listener and the tails run until they are stopped (generated-running-argv.test.ts). */
const LEFT_OUT = new Set(['serve', 'exec', 'listen', 'deliveries:tail', 'logs:tail'])

test('every command, given flag and argument values of every shape, exits with a code its help documents and prints no stack', async () => {
  const commands = manifestCommands().filter(([id]) => !LEFT_OUT.has(id))
  const random = mulberry32(20_261_130)
  const pick = pickerOf(random)
  const wrong: string[] = []
  for (let i = 0; i < RUNS; i++) {
    const [id, command] = pick(commands)
    const argv = drawArgv(id, command, random)
    const {code, stdout, stderr} = await runCommand(argv, {env: server.env, cwd: dir})
    const said = `tablepay ${argv.map((a) => a.slice(0, 40)).join(' ')} → ${code}\n${(stderr + stdout).slice(0, 600)}`
    if (!documents(exitCodesOf(command), code) || CRASH.test(stderr + stdout)) wrong.push(said)
  }
  expect(wrong).toEqual([])
})
