import {execFile} from 'node:child_process'
import {mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {runCommand} from '../helpers/cli.js'

const run = promisify(execFile)

describe('tablepay autocomplete (oclif plugin-autocomplete)', () => {
  // the plugin writes its completion functions under the cache dir: one of the test's own
  let cache: string
  beforeAll(async () => {
    cache = await mkdtemp(join(tmpdir(), 'tablepay-completion-'))
  })
  afterAll(() => rm(cache, {recursive: true, force: true}))

  const functions = () => join(cache, 'tablepay', 'autocomplete', 'functions', 'bash', 'tablepay.bash')

  /** What bash offers at <TAB> after `line`, with the function `autocomplete bash` wrote. */
  async function complete(line: string): Promise<string[]> {
    const words = line.split(' ')
    const script = `source "$1"; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}
_tablepay_autocomplete; printf '%s\\n' "\${COMPREPLY[@]}"`
    const {stdout} = await run('bash', ['-c', script, 'bash', functions()])
    return [...new Set(stdout.split('\n').filter(Boolean))].sort()
  }

  it('bash prints the setup steps, and bash then completes commands and flags of this CLI', async () => {
    const {code, stdout} = await runCommand(['autocomplete', 'bash'], {env: {XDG_CACHE_HOME: cache}})
    expect(code).toBe(0)
    expect(stdout).toContain('printf "$(tablepay autocomplete script bash)" >> ~/.bashrc; source ~/.bashrc')
    expect(await readFile(functions(), 'utf8')).toContain('checks:push')
    expect(await complete('tablepay chec')).toEqual(['checks'])
    expect(await complete('tablepay checks l')).toEqual(['lint', 'list'])
    expect(await complete('tablepay deliveries list --st')).toEqual(['--starting-after', '--status'])
  })

  it('script bash prints the line the setup adds to ~/.bashrc', async () => {
    const {code, stdout} = await runCommand(['autocomplete', 'script', 'bash'], {env: {XDG_CACHE_HOME: cache}})
    expect(code).toBe(0)
    expect(stdout).toContain(`TABLEPAY_AC_BASH_SETUP_PATH=${join(cache, 'tablepay', 'autocomplete', 'bash_setup')}`)
  })
})
