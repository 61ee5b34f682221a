/**
 * vitest globalSetup: the temp dirs the run's tests make with `makeTempDir` are listed in a file (its path
 * in the environment the workers inherit) and removed once the run ends, with what is in them. Removed as
 * each test file ended, they slowed the rest of the run (10 s of CPU on the 2-core machine): an ext4 without
 * a journal looks for a new file's inode past those deleted in the last minute.
 */
import {mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {TEMP_LIST} from './temp-dirs.js'

export default async function setup(): Promise<() => Promise<void>> {
  const home = await mkdtemp(join(tmpdir(), 'tablepay-run-'))
  const list = join(home, 'temp-dirs')
  process.env[TEMP_LIST] = list
  return async () => {
    const dirs = (await readFile(list, 'utf8').catch(() => '')).split('\n').filter(Boolean)
    await Promise.all([...dirs, home].map((dir) => rm(dir, {recursive: true, force: true})))
  }
}
