import {chmod} from 'node:fs/promises'
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
  // a dir that existed keeps its mode through mkdir: it holds API keys, so it is made private like a new one
  await chmod(dir, 0o700).catch((error: Error) => {
    throw new UnusableInputError(
      `store: cannot make ${dir} private (mode 0700): ${error.message}. Use a --data dir you own, or --memory.`,
    )
  })
}
