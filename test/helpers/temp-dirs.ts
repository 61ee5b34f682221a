import {appendFileSync, mkdtempSync} from 'node:fs'
import {mkdtemp} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

/** The file where the run lists the dirs `makeTempDir` made: test/helpers/temp-dirs-setup.ts removes them at its end. */
export const TEMP_LIST = 'TABLEPAY_TEST_TEMP_LIST'

/** Lists `dir` for removal at the end of the run. */
function made(dir: string): string {
  const list = process.env[TEMP_LIST]
  if (list) appendFileSync(list, `${dir}\n`)
  return dir
}

/** A new empty dir in the temp dir, removed once the test run ends. */
export async function makeTempDir(prefix = 'tablepay-test-'): Promise<string> {
  return made(await mkdtemp(join(tmpdir(), prefix)))
}

/** `makeTempDir`, for a caller that cannot wait. */
export function makeTempDirSync(prefix: string): string {
  return made(mkdtempSync(join(tmpdir(), prefix)))
}

/**
 * `name` in the dir of what test runs keep from one to the next (`$TMPDIR/tablepay-test-cache`, CONTRIBUTING.md
 * "Tests"): name it for what it is made from, so a change makes a new one.
 */
export const testCache = (name: string): string => join(tmpdir(), 'tablepay-test-cache', name)
