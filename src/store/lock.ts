import {open, readFile, rm} from 'node:fs/promises'
import {join} from 'node:path'

const LOCK_FILE = 'server.lock'

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists but belongs to someone else
    return (error as NodeJS.ErrnoException).code === 'EPERM'
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
      return () => rm(path, {force: true})
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const pid = Number(JSON.parse(await readFile(path, 'utf8').catch(() => '{}')).pid)
      if (pid && isAlive(pid)) {
        throw new Error(
          `store: ${dir} is in use by another tablepay server (pid ${pid}). Stop it, or start this one with another --data directory or --memory.`,
        )
      }
      await rm(path, {force: true})
    }
  }
  throw new Error(`store: could not lock ${dir}; remove ${path} if no server is running`)
}
