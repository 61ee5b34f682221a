// The processes the bench measures: the real `tablepay serve`, the bare
// baseline server and the receiver, each in its own process so that the
// load generator never shares their event loop.
import {fork, spawn} from 'node:child_process'
import {readdirSync, readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

export const ROOT = fileURLToPath(new URL('..', import.meta.url))
export const BIN = fileURLToPath(new URL('../bin/run.js', import.meta.url))
export const SEED = fileURLToPath(new URL('../fixtures/seed.json', import.meta.url))
export const WRITE_KEY = 'tp_test_demo_write'

// a bench that fails half-way must not leave servers running
const children = new Set()
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL')
})
/** What must end before the bench exits on Ctrl+C or SIGTERM: a PostgreSQL's stop, which removes its temp dir. */
const stops = new Set()
let stopping = false
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => {
    // a second signal while the stops run exits at once
    if (stopping || stops.size === 0) process.exit(130)
    stopping = true
    void Promise.allSettled([...stops].map((stop) => stop())).finally(() => process.exit(130))
  })
/** Runs `stop` before the bench exits on a signal; the function returned forgets it. */
export const stopOnSignal = (stop) => {
  stops.add(stop)
  return () => stops.delete(stop)
}
/** Kills `child` when the bench exits. */
export const track = (child) => {
  children.add(child)
  child.on('exit', () => children.delete(child))
  return child
}

/**
 * Starts `tablepay serve --json` on `dataDir` and resolves on its ready line.
 * `startedAt`/`readyAt` are performance.now() times of the spawn and of the
 * first 200 from /v1/health. With `database`, the records live in that
 * PostgreSQL database instead; `dataDir` then only holds the server's
 * registry entry. With `bin`, another build's `bin/run.js` is started
 * (`--compare`, bench/groups/compare.js).
 *
 * @param {string} dataDir
 * @param {string[]} [extraArgs]
 * @param {{database?: string, bin?: string}} [options]
 */
export async function startServe(dataDir, extraArgs = [], {database, bin = BIN} = {}) {
  const startedAt = performance.now()
  const child = track(
    spawn(
      process.execPath,
      [
        ...(process.env.BENCH_SERVE_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
        bin,
        'serve',
        '--port',
        '0',
        ...(database ? ['--database', database] : ['--data', dataDir]),
        '--seed',
        SEED,
        '--json',
        ...extraArgs,
      ],
      {
        cwd: ROOT,
        // bench servers register in the bench's data dir, not in the user's list of running servers
        env: {...process.env, NO_COLOR: '1', TABLEPAY_HOME: dataDir},
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    ),
  )
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const exited = new Promise((resolve) => child.on('close', resolve))
  const line = await new Promise((resolve, reject) => {
    let stdout = ''
    child.stdout.on('data', (chunk) => {
      stdout += chunk
      if (stdout.includes('\n')) resolve(stdout.slice(0, stdout.indexOf('\n')))
    })
    exited.then((code) => reject(new Error(`serve exited (${code}) before its ready line:\n${stderr}`)))
  })
  const {url} = JSON.parse(line)
  const health = await fetch(`${url}/health`)
  if (health.status !== 200) throw new Error(`serve: /v1/health answered ${health.status}`)
  const readyAt = performance.now()
  return {
    url,
    origin: new URL(url).origin,
    pid: child.pid,
    startMs: readyAt - startedAt,
    stderr: () => stderr,
    async stop() {
      child.kill('SIGTERM')
      const code = await exited
      if (code !== 0) throw new Error(`serve exited ${code} on SIGTERM:\n${stderr}`)
    },
    /** SIGKILL: for a throwaway server whose clean stop (a large compaction) is not measured. */
    kill() {
      child.kill('SIGKILL')
      return exited
    },
  }
}

/** Forks a bench helper (baseline-server.js, receiver.js) with `args` and resolves once it reports its port. */
export async function startHelper(file, args = []) {
  const child = track(
    fork(fileURLToPath(new URL(file, import.meta.url)), args, {stdio: ['ignore', 'inherit', 'inherit', 'ipc']}),
  )
  const {port} = await nextMessage(child, 'port')
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    send: (message, expected) => {
      const reply = nextMessage(child, expected)
      child.send(message)
      return reply
    },
    nextMessage: (key) => nextMessage(child, key),
    stop: () => {
      const exited = new Promise((resolve) => child.on('exit', resolve))
      child.disconnect()
      return exited
    },
  }
}

/**
 * The next IPC message of `child` that has `key`; rejects if `child` exits first. A caller awaits it later
 * (`reached` in deliveries.js): its rejection is handled at once, as an unhandled one would end the bench
 * before the `finally` that stops what it started (a PostgreSQL among them) runs.
 */
export function nextMessage(child, key) {
  const message = new Promise((resolve, reject) => {
    const onExit = (code) => reject(new Error(`${child.spawnargs.join(' ')} exited (${code})`))
    const onMessage = (message) => {
      if (!(key in message)) return
      child.off('message', onMessage).off('exit', onExit)
      resolve(message)
    }
    child.on('message', onMessage).once('exit', onExit)
  })
  message.catch(() => {})
  return message
}

/** Resident memory of a process in MB, from /proc (Linux). */
export function residentMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1])
  return kb / 1024
}

/**
 * CPU time a process has used so far, in ms (Linux: utime + stime from
 * /proc, in clock ticks of 10 ms); with `mainThread`, only its main
 * thread's, the one that answers requests (V8's helper threads, which
 * collect garbage beside it, left out).
 */
export function cpuMs(pid, mainThread = false) {
  const file = mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`
  const fields = readFileSync(file, 'utf8').split(') ')[1].split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}

/**
 * Resolves once none of `pids` used more than 10 ms of CPU in the last 250 ms:
 * a run starts only when the previous one's background work (compaction,
 * retries) is over, so it is not measured in the wrong window.
 */
export async function quiet(pids) {
  let before = pids.map(cpuMs)
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 250))
    const now = pids.map(cpuMs)
    if (now.every((ms, i) => ms - before[i] <= 10)) return
    before = now
  }
}

/** Wall time of one process run to completion, in ms. */
export function timeRun(args, input) {
  const started = performance.now()
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    stdio: [input === undefined ? 'ignore' : 'pipe', 'ignore', 'pipe'],
  })
  if (input !== undefined) child.stdin.end(input)
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr += chunk))
  return new Promise((resolve, reject) =>
    child.on('close', (code) =>
      code === 0
        ? resolve(performance.now() - started)
        : reject(new Error(`node ${args.join(' ')} exited ${code}:\n${stderr}`)),
    ),
  )
}

/**
 * Bytes of the files under `dir` (a data dir), in MB; with `named`, of
 * those whose name it takes only (the journal's segments, say).
 *
 * @param {string} dir
 * @param {(name: string) => boolean} [named]
 */
export function dirMb(dir, named = () => true) {
  let bytes = 0
  for (const entry of readdirSync(dir, {withFileTypes: true, recursive: true})) {
    if (entry.isFile() && named(entry.name)) bytes += statSync(join(entry.parentPath ?? entry.path, entry.name)).size
  }
  return bytes / 2 ** 20
}
