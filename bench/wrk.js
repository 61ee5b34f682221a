// wrk, the bench's load generator: a C event loop with a LuaJIT script
// (bench/push.lua) that builds the changing bodies. It needs a fraction of
// the CPU autocannon needs for the same requests, which matters on a
// 2-core machine where the load generator and the server share the cores.
// Why and how: docs/benchmarks.md "The load".
import {execFile, spawn} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {promisify} from 'node:util'
import {bodyTails} from './load.js'
import {WRITE_KEY} from './processes.js'

const SCRIPT = fileURLToPath(new URL('push.lua', import.meta.url))
const run = promisify(execFile)

/** @type {Promise<boolean> | undefined} */
let available

/**
 * Whether wrk can be used: it is on the PATH, or this process runs as root
 * and installs Debian's package. Otherwise says how to install it and that
 * the bench falls back to autocannon. Asked once per bench.
 */
export function wrkAvailable() {
  available ??= findOrInstallWrk()
  return available
}

async function hasWrk() {
  try {
    await run('wrk', ['--version'])
    return true
  } catch (error) {
    // `wrk --version` prints its usage and exits 1: only a missing binary is missing
    return error.code !== 'ENOENT'
  }
}

async function findOrInstallWrk() {
  if (await hasWrk()) return true
  const warn = (text) => process.stderr.write(`bench: ${text}\n`)
  if (process.getuid?.() === 0) {
    warn('wrk is missing: apt-get install -y wrk')
    try {
      await run('apt-get', ['install', '-y', 'wrk']).catch(async () => {
        await run('apt-get', ['update'])
        await run('apt-get', ['install', '-y', 'wrk'])
      })
    } catch (error) {
      warn(`could not install wrk: ${error.message.split('\n')[0]}`)
    }
    if (await hasWrk()) return true
  }
  warn(
    'WARNING: wrk is missing (install it with `sudo apt-get install wrk`, or your system’s wrk package); ' +
      'falling back to autocannon, which needs most of a core itself and flatters every ratio on a busy machine ' +
      '(docs/benchmarks.md "The load")',
  )
  return false
}

let configDir
let configs = 0
/** @type {string[] | undefined} */
let tails
// a file per run: two runs started together (two instances under load at once) must not read each other's
const configPath = () => {
  if (!configDir) {
    configDir = mkdtempSync(join(tmpdir(), 'tablepay-bench-wrk-'))
    process.on('exit', () => rmSync(configDir, {recursive: true, force: true}))
  }
  return join(configDir, `stream-${++configs}.lua`)
}

/** A Lua long string: no escapes to get wrong. */
const luaString = (text) => {
  if (text.includes(']==]')) throw new Error('bench: a wrk string may not contain ]==]')
  return `[==[${text}]==]`
}

/**
 * The stream's state as a Lua table for push.lua: where the walk is, the
 * version held of each check, and the body tails (bench/load.js bodyTails).
 *
 * @param {import('./load.js').Stream} stream
 * @param {number | undefined} amount
 * @param {string[]} tails
 */
function streamConfig({set, kind, base}, amount, tails) {
  return [
    'return {',
    `kind = ${luaString(kind)},`,
    `base = ${luaString(base)},`,
    `prefix = ${luaString(set.prefix)},`,
    `count = ${set.count},`,
    `cursor = ${set.cursor},`,
    `auth = ${luaString(`Bearer ${WRITE_KEY}`)},`,
    `amount = ${amount ?? 'nil'},`,
    `versions = {${set.versions.join(',')}},`,
    `tails = {${tails.map(luaString).join(',\n')}},`,
    '}',
  ].join('\n')
}

/**
 * One wrk run of `stream` (one thread, `connections` connections):
 * `duration` seconds, or exactly `amount` requests timed to the last
 * answer. The set is moved past every request wrk built, answered or not,
 * so the next run's changes are newer than anything the server may hold.
 *
 * @param {string} url
 * @param {import('./load.js').Stream} stream
 * @param {{duration?: number, amount?: number, connections?: number, timeout?: number}} options
 * @returns {Promise<import('./load.js').LoadResult>}
 */
export async function runWrk(url, stream, {duration, amount, connections = 50, timeout = 10}) {
  const path = configPath()
  tails ??= bodyTails()
  writeFileSync(path, streamConfig(stream, amount, tails))
  const seconds = amount === undefined ? Math.max(1, Math.round(duration)) : 3600
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, `--timeout`, `${timeout}s`, '-s', SCRIPT, url]
  // BENCH_WRK_NICE=-15 runs wrk ahead of the servers for a core, so that its latencies leave out its own waits
  // for one (docs/postgres.md, "Where a push's p99 goes")
  const nice = process.env.BENCH_WRK_NICE
  const child = spawn(nice ? 'nice' : 'wrk', nice ? ['-n', nice, 'wrk', ...args] : args, {
    env: {...process.env, BENCH_WRK_CONFIG: path},
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const started = performance.now()
  let finished = 0
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => {
    stdout += chunk
    if (finished === 0 && stdout.includes('BENCH_AMOUNT_DONE\n')) {
      finished = performance.now()
      child.kill('SIGINT')
    }
  })
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const code = await new Promise((resolve) => child.on('close', resolve))
  rmSync(path, {force: true})
  const line = stdout.split('\n').find((l) => l.startsWith('BENCH '))
  if (code !== 0 || !line) throw new Error(`wrk ${args.join(' ')} exited ${code}:\n${stdout}${stderr}`)
  const r = JSON.parse(line.slice('BENCH '.length))
  stream.set.advance(stream.kind, r.generated)
  const errors = r.connect + r.read + r.write + r.timeout
  if (r.bad > 0 || errors > 0) {
    throw new Error(
      `load on ${url}: ${r.bad} non-2xx answers (last ${r.bad_status}), ${r.connect} connect, ${r.read} read, ` +
        `${r.write} write errors, ${r.timeout} timeouts`,
    )
  }
  const outcomes = Object.fromEntries(
    ['created', 'updated', 'unchanged', 'stale', 'answered'].filter((k) => r[k] > 0).map((k) => [k, r[k]]),
  )
  // wrk times a run of -d; a run of `amount` is timed here, to its last answer
  const secondsTaken = amount === undefined ? r.duration_us / 1e6 : (finished - started) / 1000
  return {
    rps: r.ok / secondsTaken,
    p99: r.p99_us / 1000,
    requests: r.ok,
    outcomes,
    loaderCpuMs: r.cpu_s * 1000,
    seconds: secondsTaken,
  }
}
