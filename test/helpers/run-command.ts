import {createRequire} from 'node:module'
import {join} from 'node:path'
import {Readable} from 'node:stream'
import {STOPPING} from '../../src/cli/shutdown.js'
// oclif reads the terminal width once, when it is first loaded (hence the
// imports below, after this line): unwrapped error messages, as the spawned
// CLI prints them (see cleanEnv in cli.ts).
process.env.OCLIF_COLUMNS = '500'

export interface CommandResult {
  code: number | null
  stdout: string
  stderr: string
  /** Which path ran the command: bin/run.js's lean one, or oclif. */
  path?: 'lean' | 'oclif'
}

interface Oclif {
  run: typeof import('@oclif/core').run
  handle: typeof import('@oclif/core/handle')
}

let loading: Promise<Oclif> | undefined

/** oclif, loaded once per worker; command modules stay loaded between runs. */
function oclif(): Promise<Oclif> {
  loading ??= (async () => {
    const [core, handle] = await Promise.all([import('@oclif/core'), import('@oclif/core/handle')])
    // as bin/run.js: never look for TypeScript sources
    core.settings.enableAutoTranspile = false
    return {run: core.run, handle}
  })()
  return loading
}

/** bin/run.js's lean entry, as built (dist/cli/lean-entry.cjs, CommonJS), loaded once per worker. */
function leanEntry(root: string): {runLean(argv: readonly string[], root: string): Promise<boolean>} {
  return createRequire(import.meta.url)(join(root, 'dist', 'cli', 'lean-entry.cjs')) as ReturnType<typeof leanEntry>
}

// One command at a time: stdout, stderr, stdin, argv and the environment are the process's own.
let queue: Promise<unknown> = Promise.resolve()

/**
 * Runs one command in this process as bin/run.js would (oclif's `run`, then
 * its error handler), with `env` as the whole TABLEPAY_* environment and
 * `input` as stdin. Resolves with the exit code the binary would end with.
 *
 * @example
 * const {code, stdout} = await runInProcess(ROOT, ['checks', 'list', '--json'], {TABLEPAY_URL: url}, '')
 */
export function runInProcess(
  root: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  input = '',
  how: RunHow = {},
): Promise<CommandResult> {
  const result = queue.then(() => runAlone(root, args, env, input, undefined, undefined, how))
  queue = result.catch(() => undefined)
  return result
}

/** bin/run.js's lean path first (`lean`), and the directory the command runs in (`cwd`: the process's, else). */
interface RunHow {
  lean?: boolean
  cwd?: string
}

/** What a command writes, as it writes it. */
type OnWrite = (name: 'stdout' | 'stderr', text: string) => void

export interface RunningCommand {
  /** Everything printed on stdout so far. */
  stdout(): string
  stderr(): string
  /** Resolves with stdout once it contains `text`; rejects if the command ends first. */
  waitForOutput(text: string): Promise<string>
  /** Resolves with stderr once it contains `text`; rejects if the command ends first. */
  waitForStderr(text: string): Promise<string>
  /** Ctrl+C: runs the SIGINT handlers the command installed (no signal is sent), then resolves with its result. */
  interrupt(): Promise<CommandResult>
  /** The result once the command ends. */
  done: Promise<CommandResult>
}

/**
 * Starts a command that keeps running (`deliveries tail`, `logs tail`) in
 * this process, as runInProcess runs one, with its output readable as it
 * comes; `interrupt()` ends it as Ctrl+C does. Other in-process commands wait
 * for it to end.
 *
 * @example
 * const tail = startInProcess(ROOT, ['logs', 'tail'], env)
 * await tail.waitForStderr('Waiting for requests')
 */
export function startInProcess(root: string, args: string[], env: NodeJS.ProcessEnv): RunningCommand {
  const output = {stdout: '', stderr: ''}
  const waiters = new Set<() => void>()
  let ended = false
  const onWrite: OnWrite = (name, text) => {
    output[name] += text
    for (const check of waiters) check()
  }
  let interrupt = () => {}
  const done = queue.then(() =>
    runAlone(root, args, env, '', onWrite, (send) => {
      interrupt = send
    }),
  )
  queue = done.catch(() => undefined)
  void done.finally(() => {
    ended = true
    for (const check of waiters) check()
  })
  const waitFor = (name: 'stdout' | 'stderr', text: string) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        if (output[name].includes(text)) resolve(output[name])
        else if (ended)
          reject(new Error(`${args.join(' ')} ended before printing ${JSON.stringify(text)}:\n${output.stderr}`))
        else return
        waiters.delete(check)
      }
      waiters.add(check)
      check()
    })
  return {
    stdout: () => output.stdout,
    stderr: () => output.stderr,
    waitForOutput: (text) => waitFor('stdout', text),
    waitForStderr: (text) => waitFor('stderr', text),
    interrupt() {
      // once: a second Ctrl+C would reach the handler that ends the process at once
      interrupt()
      interrupt = () => {}
      return done
    },
    done,
  }
}

async function runAlone(
  root: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  input: string,
  onWrite?: OnWrite,
  onStarted?: (interrupt: () => void) => void,
  {lean = false, cwd}: RunHow = {},
): Promise<CommandResult> {
  const {run, handle} = await oclif()
  const saved = {
    env: {...process.env},
    argv: process.argv,
    stdin: Object.getOwnPropertyDescriptor(process, 'stdin')!,
    cwd: process.cwd(),
  }
  // vitest's workers are processes (its `forks` pool), whose directory may change
  if (cwd) process.chdir(cwd)
  const exit = handle.Exit.exit
  let code: number | undefined
  replaceEnv(env)
  process.argv = [process.execPath, 'run.js', ...args]
  Object.defineProperty(process, 'stdin', {configurable: true, value: Readable.from([Buffer.from(input)])})
  process.exitCode = undefined
  // oclif's handler prints the error and ends the process; here it only tells the code
  handle.Exit.exit = ((exitCode = 0) => void (code = exitCode)) as typeof exit
  // the binary exits before Node prints oclif's warning about a command that failed before parsing
  const emitWarning = process.emitWarning
  process.emitWarning = ((warning: string | Error, options?: {code?: string}) =>
    options?.code === 'UnparsedCommand' || emitWarning.call(process, warning, options)) as typeof emitWarning
  // the command's own signal handlers: Ctrl+C reaches only them, and none is left behind (one per run would pile
  // up in the worker, and Node warns on stderr past ten)
  const before = new Map(STOPPING.map((name) => [name, process.listeners(name)]))
  // the lean path's own: one a run, as the binary adds it once
  const stdoutErrors = process.stdout.listeners('error')
  const added = (name: NodeJS.Signals) => process.listeners(name).filter((l) => !before.get(name)!.includes(l))
  let running = true
  let path: CommandResult['path'] = 'oclif'
  onStarted?.(() => {
    if (running) for (const listener of added('SIGINT')) listener('SIGINT')
  })
  try {
    const output = await captureOutput(async () => {
      try {
        // as bin/run.js: the lean path first, when asked, oclif when it gives way. A Config of its own, read
        // from package.json and oclif.manifest.json as bin/run.js reads it (commands found by id): one shared
        // between runs loses commands after a help screen
        if (lean && (await leanEntry(root).runLean(args, root))) path = 'lean'
        else await run(args, {root})
      } catch (error) {
        await handle.handle(error as Error)
      }
    }, onWrite)
    return {code: code ?? Number(process.exitCode ?? 0), ...output, path}
  } finally {
    running = false
    for (const name of STOPPING) for (const listener of added(name)) process.off(name, listener)
    for (const listener of process.stdout.listeners('error'))
      if (!stdoutErrors.includes(listener)) process.stdout.off('error', listener as (error: Error) => void)
    handle.Exit.exit = exit
    process.emitWarning = emitWarning
    process.exitCode = undefined
    Object.defineProperty(process, 'stdin', saved.stdin)
    process.argv = saved.argv
    process.chdir(saved.cwd)
    replaceEnv(saved.env)
  }
}

/** Makes process.env hold exactly `env` (process.env must stay the same object: child processes read it). */
function replaceEnv(env: NodeJS.ProcessEnv): void {
  for (const name of Object.keys(process.env)) if (!(name in env)) delete process.env[name]
  Object.assign(process.env, env)
}

/**
 * What `fn` writes on stdout and stderr, as @oclif/test's captureOutput
 * takes it (console, `this.log` and ora all end in these two `write`s), but
 * with colours left as they are: the runs are set up without them.
 */
async function captureOutput(fn: () => Promise<void>, onWrite?: OnWrite): Promise<{stdout: string; stderr: string}> {
  const chunks = {stdout: [] as Buffer[], stderr: [] as Buffer[]}
  const writes = {stdout: process.stdout.write, stderr: process.stderr.write}
  for (const name of ['stdout', 'stderr'] as const) {
    process[name].write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      chunks[name].push(Buffer.from(chunk))
      onWrite?.(name, Buffer.from(chunk).toString())
      const done = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined
      done?.()
      return true
    }) as typeof process.stdout.write
  }
  try {
    await fn()
  } finally {
    process.stdout.write = writes.stdout
    process.stderr.write = writes.stderr
  }
  return {stdout: Buffer.concat(chunks.stdout).toString(), stderr: Buffer.concat(chunks.stderr).toString()}
}
