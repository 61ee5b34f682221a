import {readFileSync} from 'node:fs'

/** The fields of `/proc/PID/stat` after the command's name, its state first; undefined where there is no /proc. */
export function processStat(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  } catch {
    return undefined
  }
}

/**
 * Whether process `pid` runs: it exists (EPERM: as another user's) and is not a zombie, one that has ended
 * and waits for its parent to reap it. In a container whose first process reaps slowly, a server just killed
 * stays a zombie for a while, and its lock would keep the next start out.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
  return processStat(pid)?.[0] !== 'Z'
}
