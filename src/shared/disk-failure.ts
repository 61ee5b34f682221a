import {existsSync} from 'node:fs'

/** A directory where one of the data dir's files should be. */
const IN_THE_WAY = 'move out of it the directory that stands where one of its files should be'

/** What to do when the data dir's disk refuses an operation, by the errno (docs/storage.md, "Files"). */
const REMEDIES: Record<string, string> = {
  ENOSPC: 'free space on its disk',
  EDQUOT: 'free space within your disk quota',
  EFBIG: 'raise the largest file size its process may write (`ulimit -f`)',
  EACCES: 'let the user that runs tablepay read and write its files, or run tablepay as their owner',
  EPERM: 'let the user that runs tablepay read and write its files, or run tablepay as their owner',
  EROFS: 'make its file system writable, or give --data a dir on another one',
  EISDIR: IN_THE_WAY,
  // what Node's rm throws for a directory where a file was to be removed
  ERR_FS_EISDIR: IN_THE_WAY,
  EIO: 'its disk failed: copy the data dir to a sound disk and give --data the copy',
}

/** What to do about `error` on the data dir's disk: its errno's remedy, or the usual one. */
export const diskRemedy = (error: unknown): string =>
  REMEDIES[(error as NodeJS.ErrnoException | null)?.code ?? ''] ?? 'free space or fix its disk'

/**
 * `error`, an errno of the data dir `dir`'s disk while `doing` something, as one line that says what failed and
 * what to do; undefined for any other error, which keeps its stack trace for a bug report.
 *
 * @example
 * diskFailure('compacting', '/srv/tablepay', enospc)
 * // 'store: compacting /srv/tablepay failed (ENOSPC: no space left on device, write): free space on its disk.'
 */
export function diskFailure(doing: string, dir: string, error: unknown): string | undefined {
  if (error instanceof Removed) return `store: ${doing} ${dir} failed: ${error.message}.`
  if (dirRemoved(dir, error)) return `store: ${doing} ${dir} failed: ${removed(dir)}.`
  const {code, path, message} = (error ?? {}) as NodeJS.ErrnoException
  const remedy = code === undefined ? undefined : REMEDIES[code]
  // the file, when the errno's message does not name it (a read's does not)
  const file = path === undefined || message.includes(path) ? '' : ` ${path}`
  return remedy && `store: ${doing} ${dir} failed (${message}${file}): ${remedy}.`
}

/** What a file (or dir) of the data dir removed while tablepay ran lost, and what a start `then` does. */
const lost = (path: string, then: string) =>
  `${path} was removed while tablepay ran, and every change it held with it: ${then}`

/** What a data dir removed while tablepay ran lost: its files are gone, and a start makes a new one. */
export const removed = (dir: string): string => lost(dir, 'a new start makes a new one')

/**
 * A journal write's failure when the data dir, or the journal's segment, was removed while tablepay ran
 * (`rm -rf`, or a dir made again at its path): the line went to a file no start reads, so no change of it is
 * answered as saved (journal.ts).
 */
export class Removed extends Error {
  readonly code = 'ENOENT'

  constructor(
    /** The data dir, or the segment when the dir is still there. */
    readonly path: string,
    dir: boolean,
  ) {
    super(dir ? removed(path) : lost(path, 'a new start goes on without them'))
  }
}

/** What a failed journal write left of the changes answered before it. */
export const keptAfter = (error: unknown): string =>
  error instanceof Removed ? error.message : 'Every change answered before is kept'

/** What to do once the data dir failed: `error`'s remedy, then a restart; only the restart when files were removed. */
export const goOn = (error: unknown): string =>
  `${error instanceof Removed ? '' : `${diskRemedy(error)}, then `}restart \`tablepay serve\``

/** Whether `error` is the data dir `dir` gone: removed while tablepay ran (`rm -rf`), not a file of it missing. */
export const dirRemoved = (dir: string, error: unknown): boolean =>
  (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT' && !existsSync(dir)
