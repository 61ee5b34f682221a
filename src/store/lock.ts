import {link, open, readdir, readFile, realpath, rm} from 'node:fs/promises'
import {randomUUID} from 'node:crypto'
import {uptime} from 'node:os'
import {join} from 'node:path'
import {isAlive, processStat} from '../shared/process-alive.js'

/**
 * A server holds a data dir by creating `server.<generation>.lock`. A lock
 * file is never replaced or deleted to take a dir over: a starter that
 * finds the newest lock's server gone creates the next generation, and
 * creating a name that exists fails, so of two servers started together
 * exactly one wins (docs/storage.md). `server.lock`, written by earlier
 * versions, counts as generation 0.
 */
const LOCK = /^server\.(\d+)\.lock$/
const LEGACY_LOCK = 'server.lock'
const LOCK_TEMP = /^server\.\d+\.lock\.(\d+)\.\w+\.tmp$/

const lockName = (generation: number) => `server.${String(generation).padStart(12, '0')}.lock`

interface LockFile {
  pid: number
  started_at: string
  /** The process's start time in clock ticks since boot (Linux): tells a reused pid from the server's. */
  proc_start?: string
  /** Random, per start: tells the locks this process holds from a previous run's of the same pid. */
  lock?: string
}

/**
 * The `lock` of each lock file this process holds, and the dirs it is locking right now (by their real path):
 * not by the path given, which another open of the same dir may spell otherwise (a symlink, a relative path).
 */
const held = new Set<string>()
const locking = new Set<string>()

/** When the process started, from /proc (field 22 of its stat); undefined where there is no /proc. */
const processStart = (pid: number): string | undefined => processStat(pid)?.[19]

async function readLock(path: string): Promise<LockFile | undefined> {
  try {
    const lock = JSON.parse(await readFile(path, 'utf8')) as LockFile
    return Number.isInteger(lock.pid) && lock.pid > 0 ? lock : undefined
  } catch {
    // a legacy lock torn by a crash between create and write, or one that is gone already
    return undefined
  }
}

/** Whether the lock's server still runs: its pid is alive and is the same process, not a later one given that pid. */
async function isHeld(lock: LockFile | undefined): Promise<boolean> {
  if (!lock) return false
  // our own pid in a lock we do not hold is a previous run's: containers restart with the same pid
  if (lock.pid === process.pid) return lock.lock !== undefined && held.has(lock.lock)
  if (!isAlive(lock.pid)) return false
  const start = processStart(lock.pid)
  if (start !== undefined && lock.proc_start !== undefined) return start === lock.proc_start
  // no /proc, or a legacy lock: a lock from before the last boot is a dead server's
  return Date.parse(lock.started_at) > Date.now() - uptime() * 1000
}

async function locks(dir: string): Promise<{generation: number; path: string}[]> {
  return (await readdir(dir))
    .map((name) => ({generation: name === LEGACY_LOCK ? 0 : Number(LOCK.exec(name)?.[1] ?? -1), path: join(dir, name)}))
    .filter((lock) => lock.generation >= 0)
    .sort((a, b) => b.generation - a.generation)
}

/** Temp files of `createWith` whose process died before it removed them. */
async function removeDeadTemps(dir: string): Promise<void> {
  for (const name of await readdir(dir)) {
    const pid = Number(LOCK_TEMP.exec(name)?.[1])
    if (pid && !isAlive(pid)) await rm(join(dir, name), {force: true})
  }
}

/** The server that holds the newest lock, if it is still running. */
async function holder(newest: {path: string} | undefined): Promise<{pid: number; path: string} | undefined> {
  if (!newest) return undefined
  const lock = await readLock(newest.path)
  return (await isHeld(lock)) ? {pid: lock!.pid, path: newest.path} : undefined
}

function inUse(dir: string, {pid, path}: {pid: number; path: string}): Error {
  return new Error(
    `store: ${dir} is in use by another tablepay server (pid ${pid}). ` +
      'Stop it, or start this one with another --data directory or --memory. ' +
      `If no tablepay server runs as pid ${pid}, delete ${path}.`,
  )
}

/**
 * Runs between a lock's content and its name, once this process has looked at the dir and chosen the generation
 * to create. A test holds two starters here to decide which creates first (test/store/lock-race.test.ts); a
 * server never sets it.
 */
export const lockSeam = {beforeCreate: async (_path: string): Promise<void> => {}}

/** Creates `path` holding `text`, or fails with EEXIST: the content comes first, so no one reads a lock half made. */
async function createWith(path: string, text: string): Promise<void> {
  const temp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`
  const handle = await open(temp, 'wx', 0o600)
  try {
    await handle.writeFile(text)
  } finally {
    await handle.close()
  }
  try {
    await lockSeam.beforeCreate(path)
    await link(temp, path)
  } finally {
    await rm(temp, {force: true})
  }
}

/**
 * Makes this process the only server on `dir`. A lock whose server is gone
 * (killed, or its pid now another program's) is taken over; a live one is
 * refused. Returns the function that releases the lock.
 */
export async function lockDataDir(dir: string): Promise<() => Promise<void>> {
  const real = await realpath(dir)
  if (locking.has(real)) throw inUse(dir, {pid: process.pid, path: join(dir, 'server.*.lock')})
  locking.add(real)
  try {
    const proc_start = processStart(process.pid)
    // `lock`, random, tells this start's file from another of the same name, pid and millisecond (a dir made again)
    const lock = randomUUID()
    const content = JSON.stringify({pid: process.pid, started_at: new Date().toISOString(), proc_start, lock})
    for (let attempt = 0; attempt < 10; attempt++) {
      // one look decides both: the generation to create is the one after the lock found dead
      const [newest] = await locks(dir)
      const running = await holder(newest)
      if (running) throw inUse(dir, running)
      const path = join(dir, lockName((newest?.generation ?? 0) + 1))
      try {
        await createWith(path, content)
      } catch (error) {
        // another server took this generation first: look again at who holds the dir
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue
        throw error
      }
      const [first, ...older] = await locks(dir)
      if (first!.path !== path) {
        // a newer generation than ours means its creator could not see ours: let the next look decide
        await rm(path, {force: true})
        continue
      }
      held.add(lock)
      for (const stale of older) await rm(stale.path, {force: true})
      await removeDeadTemps(dir)
      return async () => {
        // a dir made again at its path while this server ran may hold another's lock of the same name
        const now = await readFile(path, 'utf8').catch(() => undefined)
        if (now !== undefined && now !== content) return
        held.delete(lock)
        await rm(path, {force: true})
      }
    }
    throw new Error(`store: could not lock ${dir}: other servers keep starting on it`)
  } finally {
    // a failed attempt frees the dir for the next one; a held lock keeps `held`
    locking.delete(real)
  }
}
