import {expect, test} from 'vitest'
import {exitCodesOf} from '../../src/cli/exit-codes.js'
import {argvSetting, CRASH, documents, drawArgv, RUNNING} from '../helpers/argv.js'
import {runCommand} from '../helpers/cli.js'
import {manifestCommands} from '../helpers/manifest.js'
import {mulberry32, pickerOf} from '../helpers/random.js'

const setting = argvSetting()

/** Command lines in the run: every command gets about six. */
const RUNS = 300

test('every command, given flag and argument values of every shape, exits with a code its help documents and prints no stack', async () => {
  const commands = manifestCommands().filter(([id]) => !RUNNING.includes(id))
  const random = mulberry32(20_261_130)
  const pick = pickerOf(random)
  const wrong: string[] = []
  for (let i = 0; i < RUNS; i++) {
    const [id, command] = pick(commands)
    const argv = drawArgv(id, command, random)
    const {code, stdout, stderr} = await runCommand(argv, {env: setting.server.env, cwd: setting.dir})
    const said = `tablepay ${argv.map((a) => a.slice(0, 40)).join(' ')} → ${code}\n${(stderr + stdout).slice(0, 600)}`
    if (!documents(exitCodesOf(command), code) || CRASH.test(stderr + stdout)) wrong.push(said)
  }
  expect(wrong).toEqual([])
})
