import {mkdir, stat} from 'node:fs/promises'
import {dirname} from 'node:path'

/**
 * `mkdir -p` that always settles. Node's own `mkdir(dir, {recursive: true})`
 * never does where a parent exists yet the child still answers ENOENT: it
 * makes the parent (EEXIST), tries the child again, and loops forever. procfs
 * answers so for any new name (`/proc/x`). Here a
 * child still missing once its parent exists is an error, ENOENT, as `mkdir`
 * without `-p` reports it. A file in the way is EEXIST or ENOTDIR.
 *
 * @example
 * await makeDir('/tmp/tablepay/data', 0o700)
 * await makeDir('/proc/x') // rejects with ENOENT instead of hanging
 */
export async function makeDir(dir: string, mode = 0o777): Promise<void> {
  const missing = await tryMkdir(dir, mode)
  if (missing === undefined) return
  const parent = dirname(dir)
  if (parent === dir) throw missing
  await makeDir(parent, mode)
  // the parent is there now: a child still missing is final
  const still = await tryMkdir(dir, mode)
  if (still !== undefined) throw still
}

/** Makes `dir` (a directory already there will do): resolves with the ENOENT error of a missing parent, throws any other. */
async function tryMkdir(dir: string, mode: number): Promise<Error | undefined> {
  try {
    await mkdir(dir, {mode})
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return error as Error
    if (code !== 'EEXIST' || !(await isDirectory(dir))) throw error
  }
  return undefined
}

const isDirectory = (path: string): Promise<boolean> =>
  stat(path).then(
    (stats) => stats.isDirectory(),
    () => false,
  )
