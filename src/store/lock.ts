import {open, readFile, rm} from 'node:fs/promises'
import {join} from 'node:path'

const LOCK_FILE = 'server.lock'

/** Dirs this process holds: a lock with our own pid is ours only if it is in here. */
const held = new Set<string>()

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists but belongs to someone else
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** The pid in a lock file; undefined for a lock torn by a crash between create and write. */
async function lockOwner(path: string): Promise<number | undefined> {
  try {
    const pid = Number(JSON.parse(await readFile(path, 'utf8')).pid)
    return Number.isInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}

/**
 * Makes this process the only server on `dir`. A lock whose process is gone
 * (a server that was killed) is taken over; a live one is refused.
 * Returns the function that releases the lock.
 */
export async function lockDataDir(dir: string): Promise<() => Promise<void>> {
  const path = join(dir, LOCK_FILE)
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(path, 'wx', 0o600)
      await handle.writeFile(JSON.stringify({pid: process.pid, started_at: new Date().toISOString()}))
      await handle.close()
      held.add(path)
      return () => {
        held.delete(path)
        return rm(path, {force: true})
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const pid = await lockOwner(path)
      // our own pid in a lock we do not hold is a previous run's: containers restart with the same pid
      if (pid && (pid === process.pid ? held.has(path) : isAlive(pid))) {
        throw new Error(
          `store: ${dir} is in use by another tablepay server (pid ${pid}). Stop it, or start this one with another --data directory or --memory.`,
        )
      }
      await rm(path, {force: true})
    }
  }
  throw new Error(`store: could not lock ${dir}; remove ${path} if no server is running`)
}
