import {spawn} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {constants} from 'node:os'
import {cliError} from '../cli/cli-error.js'
import {outputFor} from '../cli/output.js'
import {STOPPING} from '../cli/shutdown.js'
import {dashboardUrl} from '../cli/views/serve-banner.js'
import {firstKeys} from '../domain/seeded-account.js'
import type {RunningServer} from '../server/start.js'
import {type ServeFlags, startServing} from './run.js'

/**
 * What COMMAND learns of the server (README, "Use in CI"): where it is, the
 * first account's keys and dashboard link, and the secret of the first
 * webhook endpoint the seed gives that account, when it gives one. One the
 * server has no value for is undefined, so that COMMAND does not get the
 * caller's, of another server.
 *
 * @example
 * commandEnv(server) // {TABLEPAY_URL: 'http://127.0.0.1:41234/v1', TABLEPAY_API_KEY: 'tp_test_demo_write', …}
 */
export function commandEnv(server: RunningServer): Record<string, string | undefined> {
  const {write, read} = firstKeys(server.accounts)
  const account = server.seed?.accounts.find((a) => a.id === server.accounts[0]?.id)
  const secret = account?.webhook_endpoints?.[0]?.secret
  return {
    TABLEPAY_URL: `${server.url}/v1`,
    TABLEPAY_API_KEY: write,
    TABLEPAY_READ_KEY: read,
    TABLEPAY_DASHBOARD_URL: dashboardUrl(server),
    TABLEPAY_WEBHOOK_SECRET: secret,
  }
}

/**
 * What `tablepay exec` does once its flags are parsed: starts the server in
 * this process, runs `command` with commandEnv's variables, stops the
 * server, and resolves with the command's exit code (128 + the signal's
 * number when a signal ended it). A command that cannot be started is a CLI
 * error (exit 127 when it is not found, else 126, as shells), the server
 * stopped all the same.
 *
 * @example
 * process.exitCode = await exec({...flags, port: 0}, ['npm', 'test'])
 */
export async function exec(flags: ServeFlags, command: readonly string[]): Promise<number> {
  // stdout is the command's: the server's lines (--log) go to stderr
  const out = outputFor(false, process.stderr)
  const {server, signalled} = await untilStarted(startServing(flags, out, {register: false}), out)
  try {
    // stopped while it started (a CI job's timeout): COMMAND never runs, and the server stops as after it
    if (signalled) return 128 + constants.signals[signalled]
    out.notice(`tablepay is listening on ${server.url}/v1 until ${command[0]} exits`)
    // a variable left undefined is not passed on (child_process skips it)
    return await run(command, {...process.env, ...commandEnv(server)})
  } finally {
    await server.close()
  }
}

/**
 * The server `starting` resolves with, and the signal (SIGINT, SIGTERM, SIGHUP) that came while it started, if
 * one did: it says so and lets the start end, as `serve` does; a second ends this process at once. Listens
 * only until the start ends: then COMMAND's own forwarding takes the signals.
 */
async function untilStarted(
  starting: Promise<RunningServer>,
  out: ReturnType<typeof outputFor>,
): Promise<{server: RunningServer; signalled?: NodeJS.Signals}> {
  let signalled: NodeJS.Signals | undefined
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) process.exit(128 + constants.signals[signal])
    signalled = signal
    out.notice('Stopping tablepay…')
  }
  for (const signal of STOPPING) process.on(signal, onSignal)
  try {
    const server = await starting
    return {server, signalled}
  } finally {
    for (const signal of STOPPING) process.off(signal, onSignal)
  }
}

/**
 * Runs `command` with this process's stdin, stdout and stderr, and resolves
 * with its exit code. SIGINT, SIGTERM and SIGHUP sent to this process while it runs
 * go to it, and this process waits for it to end, so the server it calls
 * stops only after it. Once it has ended, a signal ends this process as it
 * would any: the port closes with it. (SIGKILL cannot be passed on.)
 */
function run([file, ...args]: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(file!, args, {stdio: 'inherit', env})
    // Ctrl+C in a terminal, or the terminal closing (SIGHUP), reaches the command already, as one of its
    // foreground group: a second SIGINT would make it quit without cleaning up (as tablepay's own commands,
    // vitest or npm do)
    const forward = (signal: NodeJS.Signals) => (signal !== 'SIGTERM' && inTerminalForeground()) || child.kill(signal)
    // what stops a long-running command stops COMMAND
    for (const signal of STOPPING) process.on(signal, forward)
    const done = () => STOPPING.forEach((signal) => process.off(signal, forward))
    child.on('exit', (code, signal) => {
      done()
      resolve(code ?? 128 + constants.signals[signal!])
    })
    child.on('error', (error: NodeJS.ErrnoException) => {
      // after a start, 'error' is a signal that could not be sent; 'exit' still comes
      if (child.pid !== undefined) return
      done()
      void notStarted(file!, error).then(reject)
    })
  })
}

/**
 * Whether this process is in its terminal's foreground process group, where Ctrl+C reaches every process of
 * the group. Linux says so in /proc (its group against the terminal's foreground group, -1 without a
 * terminal); elsewhere, stdin being a terminal stands for it.
 */
function inTerminalForeground(): boolean {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8')
    // after "pid (comm) ": state ppid pgrp session tty_nr tpgid
    const [, , group, , , foreground] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return group === foreground
  } catch {
    return process.stdin.isTTY === true
  }
}

async function notStarted(file: string, error: NodeJS.ErrnoException): Promise<Error> {
  const notFound = error.code === 'ENOENT'
  const why = notFound ? 'not found on the PATH nor at that path' : error.message
  return cliError(`Cannot run "${file}": ${why}.`, {
    code: 'command_not_started',
    exit: notFound ? 127 : 126,
    suggestions: [
      notFound
        ? 'Check its name, or give its path; a shell command goes through a shell: -- sh -c "…".'
        : 'Check that it is a program you may run (chmod +x).',
    ],
  })
}
