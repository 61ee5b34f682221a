import {chmod, readdir, stat} from 'node:fs/promises'
import {join} from 'node:path'
import {makeDir} from '../shared/make-dir.js'
import {UnusableInputError} from '../shared/unusable-input.js'

/** Why a data dir cannot be made, in words: the errno alone (ENOENT under /proc) would send the user looking for a parent. */
function unmakeable(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'EEXIST':
    case 'ENOTDIR':
      return 'a file is in the way'
    case 'ENOENT':
      return 'nothing can be made there (ENOENT)'
    case 'EACCES':
    case 'EPERM':
      return `not allowed (${error.code})`
    case 'EROFS':
      return 'the file system is read-only (EROFS)'
    default:
      return error.message
  }
}

/**
 * Makes the data dir, or takes the one there, private (mode 0700): it
 * holds API keys. A dir that cannot be either is an `UnusableInputError`
 * that names it and the reason (docs/storage.md, "Files").
 *
 * @example
 * await makeDataDir('/srv/tablepay')
 */
export async function makeDataDir(dir: string): Promise<void> {
  // not Node's recursive mkdir, which never settles under /proc (make-dir.ts)
  await makeDir(dir, 0o700).catch((error: NodeJS.ErrnoException) => {
    throw new UnusableInputError(
      `store: cannot make the data dir ${dir}: ${unmakeable(error)}. ` +
        'Give --data a directory you can write, or --memory to keep nothing on disk.',
    )
  })
  // a dir that existed keeps its mode through mkdir: it holds API keys, so it is made private like a new one, and
  // so are the files in it (a copy, a restore from a backup or an earlier version may have left them readable)
  await tighten(dir).catch((error: Error) => {
    throw new UnusableInputError(
      `store: cannot make ${dir} private (mode 0700, files 0600): ${error.message}. Use a --data dir you own, or --memory.`,
    )
  })
}

/** `dir` and the dirs in it made 0700, its files 0600; a link is left alone, and what it points to. */
async function tighten(dir: string): Promise<void> {
  await chmod(dir, 0o700)
  for (const entry of await readdir(dir, {recursive: true, withFileTypes: true})) {
    if (!entry.isFile() && !entry.isDirectory()) continue
    const path = join(entry.parentPath, entry.name)
    const mode = entry.isFile() ? 0o600 : 0o700
    if (((await stat(path)).mode & 0o777) !== mode) await chmod(path, mode)
  }
}
