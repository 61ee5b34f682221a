import {type ChildProcess, execFile, spawn} from 'node:child_process'
import {open, readFile} from 'node:fs/promises'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {promisify} from 'node:util'
import {type RunningCommand, runInProcess, startInProcess} from './run-command.js'
import {makeTempDir, makeTempDirSync} from './temp-dirs.js'

/** The repository root: the CLI runs from here, so `fixtures/…` paths work as in the docs. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const BIN = join(ROOT, 'bin', 'run.js')

export const WRITE_KEY = 'tp_test_demo_write'
export const READ_KEY = 'tp_test_demo_read'

export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
  /** Which path ran the command, when it ran in this process: bin/run.js's lean one, or oclif. */
  path?: 'lean' | 'oclif'
}

export interface CliOptions {
  env?: Record<string, string>
  /** Written to stdin; without it stdin is empty. */
  input?: string
  /** An open file descriptor to give as stdin instead (a directory's, as `< somedir` gives). */
  stdinFd?: number
  /** Node options before the entry, e.g. `--import` hooks. */
  nodeArgs?: string[]
  /**
   * Run through oclif (its `run` and error handler, as its `execute` does), past bin/run.js's lean
   * path: what the lean path must match. In this process unless `nodeArgs` are given.
   */
  oclif?: boolean
  /** The directory it runs in (default: the repository root). */
  cwd?: string
  /** Run bin/run.js's lean path (then oclif, if it gives way) in this process, unless `nodeArgs` are given. */
  lean?: boolean
}

const OCLIF_ENTRY = join(ROOT, 'test', 'helpers', 'oclif-entry.js')

// An empty dir of its own, so a server the developer runs in the repo (its
// ./.tablepay/server.json) can never answer for a test.
let emptyDataDir: string | undefined
// Each process gets a registry home of its own (TABLEPAY_HOME): servers of
// other tests, or the developer's, are never found; a test shares one on purpose.
let homes = 0

/** The environment of a user with no tablepay settings and no colours, plus `env`. */
function cleanEnv(env: Record<string, string> = {}): NodeJS.ProcessEnv {
  emptyDataDir ??= makeTempDirSync('tablepay-cli-')
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('TABLEPAY_')))
  // OCLIF_COLUMNS: oclif wraps error messages at 80 columns; unwrapped, assertions can match whole sentences
  const home = join(emptyDataDir, `home-${++homes}`)
  return {...base, NO_COLOR: '1', OCLIF_COLUMNS: '500', TABLEPAY_DATA: emptyDataDir, TABLEPAY_HOME: home, ...env}
}

/** The built CLI in a process of its own, its three streams piped, as runCli starts it: for a test that reads them itself. */
export function spawnCli(
  args: string[],
  env?: Record<string, string>,
  {nodeArgs = [], oclif = false, cwd = ROOT, stdinFd}: CliOptions = {},
): ChildProcess {
  return spawn(process.execPath, [...nodeArgs, oclif ? OCLIF_ENTRY : BIN, ...args], {
    cwd,
    env: cleanEnv(env),
    stdio: [stdinFd ?? 'pipe', 'pipe', 'pipe'],
  })
}

/**
 * Runs a command in this process through oclif, as bin/run.js does, with
 * the environment runCli gives (from dist/, which build-setup.ts builds
 * when stale). What most command tests use: about 1 s faster a call than runCli.
 * Not for commands that end the process or wait for a signal.
 *
 * @example
 * const {code, stdout} = await runCommand(['locations', 'list', '--json'], {env: server.env})
 */
export function runCommand(
  args: string[],
  {env, input, cwd}: Pick<CliOptions, 'env' | 'input' | 'cwd'> = {},
): Promise<CliResult> {
  return runInProcess(ROOT, args, cleanEnv(env), input, {cwd})
}

/**
 * Starts a command that keeps running (`deliveries tail`, `logs tail`) in
 * this process, with the environment runCommand gives: its output can be
 * waited for as it comes, and `interrupt()` ends it as Ctrl+C does. Other
 * in-process runs wait until it ends, so talk to the server over HTTP
 * meanwhile.
 *
 * @example
 * const tail = startCommand(['logs', 'tail', '--json'], {env: server.env})
 * await tail.waitForStderr('Waiting for requests')
 */
export function startCommand(args: string[], {env}: Pick<CliOptions, 'env'> = {}): RunningCommand {
  return startInProcess(ROOT, args, cleanEnv(env))
}

/**
 * Runs the built CLI (dist/, as build-setup.ts keeps it) as a user would, to completion,
 * in a process of its own: for what only the real binary shows (the lean
 * path, start-up, exit on a signal).
 *
 * @example
 * const {code, stdout} = await runCli(['locations', 'list', '--json'], {env: server.env})
 */
export function runCli(args: string[], {env, input, ...how}: CliOptions = {}): Promise<CliResult> {
  if (how.oclif && !how.nodeArgs) return runCommand(args, {env, input})
  if (how.lean && !how.nodeArgs) return runInProcess(ROOT, args, cleanEnv(env), input, {lean: true})
  const child = spawnCli(args, env, how)
  const out: Buffer[] = []
  const err: Buffer[] = []
  child.stdout!.on('data', (chunk: Buffer) => out.push(chunk))
  child.stderr!.on('data', (chunk: Buffer) => err.push(chunk))
  child.stdin?.end(input)
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code) =>
      resolve({code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString()}),
    )
  })
}

export interface CliProcess {
  /** Everything printed on stdout so far. */
  stdout(): string
  stderr(): string
  /** Resolves with stdout once it contains `text`; rejects with stderr if the process exits first. */
  waitForOutput(text: string): Promise<string>
  /** Resolves with stderr once it contains `text`; rejects if the process exits first. */
  waitForStderr(text: string): Promise<string>
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>
  /** Sends `signal` and resolves with the exit code (null when killed by the signal). */
  kill(signal: NodeJS.Signals): Promise<number | null>
  /** Resolves with the exit code when the process ends on its own. */
  exited: Promise<number | null>
  /** Stops reading its stdout, as `| head` does once it has its lines: its next writes fail with EPIPE. */
  closeStdout(): void
  /** Stops reading its stderr, as a closed terminal or `2>&1 | head` does: its next writes to it fail. */
  closeStderr(): void
}

/** Starts `tablepay serve --port 0 ARGS` and leaves it running. */
export function spawnServe(args: string[]): CliProcess {
  return spawnRunning(['serve', '--port', '0', ...args])
}

/**
 * `args(seed)` (`serve`, `exec`) started with fixtures/seed.json read through a pipe at `seed`, which holds
 * the start until it is written, and sent SIGTERM while it starts: resolves once it has said it stops and
 * has its seed, the start then free to end.
 */
export async function signalledWhileStarting(args: (seed: string) => string[]): Promise<CliProcess> {
  const seed = join(await makeTempDir('tablepay-slow-start-'), 'seed.fifo')
  await promisify(execFile)('mkfifo', [seed])
  const started = spawnRunning(args(seed))
  // it opens the pipe once it is starting: a writer's open waits for that
  const writer = await open(seed, 'w')
  void started.kill('SIGTERM')
  await started.waitForStderr('Stopping tablepay…')
  await writer.writeFile(await readFile(join(ROOT, 'fixtures', 'seed.json')))
  await writer.close()
  return started
}

/** Starts a command that keeps running (`serve`, `deliveries tail`, `listen`) and leaves it running. */
export function spawnRunning(
  args: string[],
  env?: Record<string, string>,
  how: Pick<CliOptions, 'cwd' | 'oclif' | 'nodeArgs'> = {},
): CliProcess {
  const child = spawnCli(args, env, how)
  const output = {stdout: '', stderr: ''}
  child.stdout!.on('data', (chunk: Buffer) => (output.stdout += chunk))
  child.stderr!.on('data', (chunk: Buffer) => (output.stderr += chunk))
  // 'close', not 'exit': stdout is fully read by then
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
  const kill = (signal: NodeJS.Signals) => {
    child.kill(signal)
    return exited
  }
  const waitFor = (name: 'stdout' | 'stderr', text: string) =>
    new Promise<string>((resolve, reject) => {
      const stream = child[name]!
      const check = () => {
        if (!output[name].includes(text)) return
        stream.off('data', check)
        resolve(output[name])
      }
      stream.on('data', check)
      check()
      exited.then((code) =>
        reject(
          new Error(`${args.join(' ')} exited (${code}) before printing ${JSON.stringify(text)}:\n${output.stderr}`),
        ),
      )
    })
  return {
    stdout: () => output.stdout,
    stderr: () => output.stderr,
    waitForOutput: (text) => waitFor('stdout', text),
    waitForStderr: (text) => waitFor('stderr', text),
    stop: () => kill('SIGTERM'),
    kill,
    exited,
    closeStdout: () => child.stdout!.destroy(),
    closeStderr: () => child.stderr!.destroy(),
  }
}

export interface CliServer extends CliProcess {
  /** The API base, with /v1, as the ready line gives it. */
  url: string
  ready: {
    status: string
    url: string
    dashboard_url: string
    data_dir: string | null
    accounts: {id: string; locations: {id: string}[]; api_keys: {key: string}[]}[]
  }
  /** The settings a client needs for this server. */
  env: Record<string, string>
}

/** `serve`'s store and seed in most tests: in memory, seeded with fixtures/seed.json. */
export const IN_MEMORY: readonly string[] = ['--memory', '--seed', 'fixtures/seed.json']

/**
 * Starts `tablepay serve --port 0 --json` (`IN_MEMORY` unless `args` say
 * otherwise) and resolves on its ready line.
 */
export async function startCliServer(args: readonly string[] = IN_MEMORY): Promise<CliServer> {
  const serve = spawnServe(['--json', ...args])
  const stdout = await serve.waitForOutput('\n')
  const ready = JSON.parse(stdout.slice(0, stdout.indexOf('\n'))) as CliServer['ready']
  return {...serve, url: ready.url, ready, env: {TABLEPAY_URL: ready.url, TABLEPAY_API_KEY: WRITE_KEY}}
}

/**
 * The CLI pointed at `server`, run in this process: `cli` runs a command,
 * `json` runs it with --json, expects exit 0 and parses stdout.
 *
 * @example
 * const {json} = cliFor(server)
 * const endpoint = await json(['webhooks', 'create', receiver.url])
 */
export function cliFor(server: Pick<CliServer, 'env'>) {
  const cli = (args: string[]) => runCommand(args, {env: server.env})
  const json = async (args: string[]) => {
    const result = await cli([...args, '--json'])
    if (result.code !== 0) throw new Error(`${args.join(' ')} exited ${result.code}:\n${result.stderr}${result.stdout}`)
    return JSON.parse(result.stdout)
  }
  return {cli, json}
}
