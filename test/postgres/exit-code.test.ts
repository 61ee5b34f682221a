import {spawn} from 'node:child_process'
import {rm, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {expect, it} from 'vitest'
import {ROOT} from '../helpers/cli.js'
import {makeTempDir} from '../helpers/simulator.js'

it('a run with the test PostgreSQL and a failed test still exits 1', async () => {
  const dir = await makeTempDir('tablepay-exit-')
  try {
    await writeFile(join(dir, 'failing.test.js'), "it('fails', () => expect(1).toBe(2))\n")
    const setup = join(ROOT, 'test', 'helpers', 'postgres-setup.ts')
    await writeFile(
      join(dir, 'vitest.config.mjs'),
      `export default {test: {globals: true, include: ['failing.test.js'], globalSetup: [${JSON.stringify(setup)}]}}\n`,
    )
    const child = spawn(process.execPath, [join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--root', dir], {
      cwd: dir,
      stdio: 'ignore',
    })
    const code = await new Promise((resolve) => child.on('close', resolve))
    expect(code).toBe(1)
  } finally {
    await rm(dir, {recursive: true, force: true})
  }
})
