import {existsSync} from 'node:fs'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {expect, it} from 'vitest'
import {ROOT} from '../helpers/cli.js'
import {manifestCommands} from '../helpers/manifest.js'

it('no command fills a positional argument left out from stdin: each takes stdin only as -', async () => {
  const read: string[] = []
  for (const [id, command] of manifestCommands()) {
    if (Object.keys(command.args ?? {}).length === 0) continue
    const base = join(ROOT, 'dist', 'commands', ...id.split(':'))
    const file = existsSync(`${base}.js`) ? `${base}.js` : join(base, 'index.js')
    const {default: Command} = (await import(pathToFileURL(file).href)) as {
      default: {args: Record<string, {ignoreStdin?: boolean}>}
    }
    for (const [name, arg] of Object.entries(Command.args)) if (!arg.ignoreStdin) read.push(`${id} ${name}`)
  }
  expect(read).toEqual([])
})
