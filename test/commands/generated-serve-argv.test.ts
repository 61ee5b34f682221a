/**
 * `serve` and `exec` given flag values of every shape, as the drawn command lines of generated-argv.test.ts
 * are, but each in a process of its own: a server runs until it is stopped, so one that starts is sent Ctrl+C
 * once it says it is ready, and must then stop as its help says.
 */
import {join} from 'node:path'
import {beforeAll, expect, test} from 'vitest'
import {exitCodesOf} from '../../src/cli/exit-codes.js'
import {argvDir, CRASH, documents, drawArgv, VALUES} from '../helpers/argv.js'
import {spawnRunning} from '../helpers/cli.js'
import {manifestCommands} from '../helpers/manifest.js'
import {mulberry32, pickerOf} from '../helpers/random.js'

let dir: string
beforeAll(async () => {
  dir = await argvDir()
})

/** Command lines in the run: a start takes about half a second. */
const RUNS = 30

/**
 * Ports drawn: a free one most times, else one refused. Never the default 4747, which the user's own server
 * may hold, nor a fixed one another test may take meanwhile.
 */
const PORTS = ['0', '0', '0', '0', '0', '0', '-1', '1e309', 'NaN', '', '65536', '80.5']

/** How often each flag is given: about one a command line, so that some of them start a server. */
const OFTEN = 0.05

/** What `serve` prints once it answers, with and without `--json` (`exec` ends on its own once COMMAND does). */
const READY = ['is listening on', '"status":"ready"']

/** How long a start may take before the run counts it as hung: a start here takes well under a second. */
const HUNG_MS = 20_000

test('serve and exec, given flag values of every shape, start and stop, or refuse, with a code their help documents and no stack', async () => {
  const commands = manifestCommands().filter(([id]) => id === 'serve' || id === 'exec')
  const random = mulberry32(20_261_201)
  const pick = pickerOf(random)
  const wrong: string[] = []
  for (let i = 0; i < RUNS; i++) {
    const [id, command] = pick(commands)
    // the host is left as it is: a name would wait on the machine's DNS, which this machine may not answer
    const argv = [...drawArgv(id, command, random, {leave: ['port', 'host'], often: OFTEN}), '--port', pick(PORTS)]
    // COMMAND: a value of every shape, or one that runs (`true`), so that exec starts a server too
    if (id === 'exec') argv.push('--', random() < 0.5 ? 'true' : pick(VALUES))
    // a data dir of its own, so that a server started without --data holds no other test's
    const running = spawnRunning(argv, {TABLEPAY_DATA: join(dir, `data-${i}`)}, {cwd: dir})
    const hung = new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), HUNG_MS).unref())
    const outcome = await Promise.race([
      running.exited,
      ...READY.map((text) => running.waitForOutput(text).then(() => 'ready' as const)),
      hung,
    ])
    const code = outcome === 'hung' ? await running.kill('SIGKILL') : await running.kill('SIGINT')
    const printed = running.stderr() + running.stdout()
    const said = `tablepay ${argv.map((a) => a.slice(0, 40)).join(' ')} → ${outcome}, ${code}\n${printed.slice(0, 600)}`
    if (outcome === 'hung' || !documents(exitCodesOf(command), code) || CRASH.test(printed)) wrong.push(said)
  }
  expect(wrong).toEqual([])
}, 240_000)
