import {mkdtempSync} from 'node:fs'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

/** The dirs `makeTempDir` made for the test file running: test/helpers/temp-dirs-setup.ts removes them after it. */
const made = new Set<string>()

/** A new empty dir in the temp dir, removed once the test file ends. */
export async function makeTempDir(prefix = 'tablepay-test-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  made.add(dir)
  return dir
}

/** `makeTempDir`, for a caller that cannot wait. */
export function makeTempDirSync(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  made.add(dir)
  return dir
}

/** Removes the dirs `makeTempDir` made, with what is in them. */
export async function removeTempDirs(): Promise<void> {
  const dirs = [...made]
  made.clear()
  await Promise.all(dirs.map((dir) => rm(dir, {recursive: true, force: true})))
}
