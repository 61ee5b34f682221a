/**
 * The commands that run until they are stopped (`serve`, `exec`, `listen`, the tails) given flag values of every
 * shape, as the drawn command lines of generated-argv.test.ts are, but each in a process of its own: one that
 * says it is ready is sent Ctrl+C, and must then stop as its help says.
 */
import {join} from 'node:path'
import {expect, test} from 'vitest'
import {exitCodesOf} from '../../src/cli/exit-codes.js'
import {argvSetting, CRASH, documents, drawArgv, RUNNING, VALUES} from '../helpers/argv.js'
import {spawnRunning} from '../helpers/cli.js'
import {manifestCommands} from '../helpers/manifest.js'
import {mulberry32, pickerOf} from '../helpers/random.js'

// its server is what `listen` and the tails follow; `serve` and `exec` start their own
const setting = argvSetting()

/** Command lines in the run: a start takes about half a second. */
const RUNS = 40

/**
 * Ports drawn: a free one most times, else one refused. Never the default 4747, which the user's own server
 * may hold, nor a fixed one another test may take meanwhile.
 */
const PORTS = ['0', '0', '0', '0', '0', '0', '-1', '1e309', 'NaN', '', '65536', '80.5']

/** How often each flag is given: about one a command line, so that some of them start a server. */
const OFTEN = 0.05

/**
 * What a command prints once it runs: `serve` on stdout, with and without `--json`, the others on stderr
 * (`exec` ends on its own once COMMAND does).
 */
const READY = {stdout: ['is listening on', '"status":"ready"'], stderr: ['Ctrl+C to stop']}

/** How long a start may take before the run counts it as hung: a start here takes well under a second. */
const HUNG_MS = 20_000

test('the commands that run until stopped, given flag values of every shape, run and stop, or refuse, with a code their help documents and no stack', async () => {
  const commands = manifestCommands().filter(([id]) => RUNNING.includes(id))
  const random = mulberry32(20_261_201)
  const pick = pickerOf(random)
  const wrong: string[] = []
  for (let i = 0; i < RUNS; i++) {
    const [id, command] = pick(commands)
    // the host is left as it is: a name would wait on the machine's DNS, which this machine may not answer
    const argv = drawArgv(id, command, random, {leave: ['port', 'host'], often: OFTEN})
    if (id === 'serve' || id === 'exec') argv.push('--port', pick(PORTS))
    // COMMAND: a value of every shape, or one that runs (`true`), so that exec starts a server too
    if (id === 'exec') argv.push('--', random() < 0.5 ? 'true' : pick(VALUES))
    const {server, dir} = setting
    // a data dir of its own, so that a server started without --data holds no other test's
    const running = spawnRunning(argv, {...server.env, TABLEPAY_DATA: join(dir, `data-${i}`)}, {cwd: dir})
    const hung = new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), HUNG_MS).unref())
    const outcome = await Promise.race([
      running.exited,
      ...READY.stdout.map((text) => running.waitForOutput(text).then(() => 'ready' as const)),
      ...READY.stderr.map((text) => running.waitForStderr(text).then(() => 'ready' as const)),
      hung,
    ])
    const code = outcome === 'hung' ? await running.kill('SIGKILL') : await running.kill('SIGINT')
    const printed = running.stderr() + running.stdout()
    const said = `tablepay ${argv.map((a) => a.slice(0, 40)).join(' ')} → ${outcome}, ${code}\n${printed.slice(0, 600)}`
    if (outcome === 'hung' || !documents(exitCodesOf(command), code) || CRASH.test(printed)) wrong.push(said)
  }
  expect(wrong).toEqual([])
}, 240_000)
