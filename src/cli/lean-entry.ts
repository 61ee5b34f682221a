import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {parseArgs} from 'node:util'
import {wholeSeconds} from '../domain/duration.js'
import {MAX_TOLERANCE_SECONDS} from '../webhooks/signature.js'
import {exitOf, failureJson} from './cli-error.js'
import {PORT_RANGE} from './flags/port.js'
import {handleFailure} from './handle-failure.js'
import {outputFor} from './output.js'
import {readerGone} from './shutdown.js'

// bin/run.js's oclif path ends a failure as the lean path does
export {handleFailure}

// docs/benchmarks.md, "The lean path": importing @oclif/core alone costs about as much as starting
// Node, so the local tools a CI loop calls run without it when they can.

interface ManifestFlag {
  name: string
  type: 'boolean' | 'option'
  aliases?: string[]
  char?: string
  env?: string
  default?: unknown
}

// the flags come from the command's own manifest entry, so they have the shape its logic takes
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Run = (flags: any, log: (text: string) => void) => Promise<unknown>

interface LeanCommand {
  /** Loads the command's own logic, and only that. */
  load: (root: string) => Promise<Run>
  /**
   * How the text of each option flag the lean path takes becomes its value (booleans need none);
   * `undefined` for a value oclif would refuse, or find otherwise. Any other option flag, given
   * or set in the environment, gives way to oclif.
   */
  options: Record<string, (text: string) => unknown>
  /** It prints JSON lines with --json (serve's ready and access lines): an error is one more, as `keepsPrinting` says. */
  lines?: true
}

const wholeNumber = (text: string) =>
  /^\d+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : undefined

/** verify's --tolerance (`300`, `5m`), or undefined for oclif to refuse in its words. */
function tolerance(text: string): number | undefined {
  try {
    return wholeSeconds(text, MAX_TOLERANCE_SECONDS)
  } catch {
    return undefined
  }
}

/**
 * The commands that can run without oclif, with the option flags each takes so. `sign --forward-to`
 * is not one: it waits for a receiver, seconds maybe, which oclif's path shows with a spinner.
 */
const COMMANDS: Record<string, LeanCommand> = {
  verify: {
    load: async () => (await import('./signing/verify.js')).verifyDelivery,
    options: {secret: String, header: String, payload: String, tolerance},
  },
  sign: {
    load: async () => (await import('./signing/sign.js')).signDelivery,
    options: {secret: String, payload: String, timestamp: wholeNumber},
  },
  // serve's run and the server, bundled into dist/serve/run.js at build (scripts/serve-bundle.js): an ES module
  serve: {
    load: async (root) => {
      const {pathToFileURL} = await import('node:url')
      const {serve} = await import(pathToFileURL(join(root, 'dist', 'serve', 'run.js')).href)
      return (flags) => serve(flags, outputFor(flags.json === true))
    },
    lines: true,
    options: {
      port: (text) => {
        const port = wholeNumber(text)
        return port !== undefined && port <= PORT_RANGE.max ? port : undefined
      },
      host: String,
      data: String,
      // a seed file that is not where given, oclif looks up in the package (shared/package-file.ts)
      seed: (text) => (existsSync(text) ? text : undefined),
    },
  },
}

/**
 * Runs `verify`, `sign` or `serve` as oclif would, without loading oclif,
 * and `--version --json`, which oclif would print as text. Returns false, having done nothing, for anything it does not handle
 * exactly as oclif does (help, an unknown, repeated or invalid flag, a flag
 * it does not take, a theme, debug output, plugins): the caller then hands
 * the command line to oclif. A failure is reported by oclif's own error
 * handler, loaded then.
 *
 * `root` is the package's folder. bin/run.js runs this module bundled into
 * one CommonJS file (scripts/lean-entry.js), where `import.meta` is not.
 *
 * @example
 * if (!(await runLean(process.argv.slice(2), root))) await run(process.argv.slice(2), root).catch(handleFailure)
 */
export async function runLean(argv: readonly string[], root: string): Promise<boolean> {
  exitOnOutputFailure(argv[0] === 'exec')
  const [id, ...rest] = argv
  // `--version --json` in either order, `-v` for `--version` as oclif takes it
  if (argv.length === 2 && argv.includes('--json') && argv.some((a) => a === '--version' || a === '-v'))
    return printVersion(root)
  if (id === undefined || !Object.hasOwn(COMMANDS, id) || !(await plainSetup())) return false
  const command = COMMANDS[id]!
  const flagSpecs = readManifest(root)?.commands?.[id]?.flags
  const flags = flagSpecs && parseFlags(rest, flagSpecs, command.options)
  if (!flags) return false
  const json = flags.json === true
  const run = await command.load(root)
  try {
    const result = await run(flags, (text) => json || console.log(text))
    if (json && result) console.log(JSON.stringify(result, null, 2))
  } catch (error) {
    if (json) {
      // as Command's catch on oclif's path: a wrong command line exits 2 with --json too
      process.exitCode = exitOf(error) ?? 1
      console.log(JSON.stringify(failureJson(error), null, command.lines ? undefined : 2))
    } else {
      // prints the error as oclif does, and exits with its code
      await handleFailure(error as Error)
    }
  }
  return true
}

let outputWatched = false

/**
 * Stdout that cannot be written (`> /dev/full`, a full disk) ends the process with exit 1 and one line that says
 * so: oclif's listener would throw the error, uncaught, with its stack. A reader that went away (`| head`, a
 * closed terminal) ends no command, nor a server: the streaming commands stop on it, a server on its signal
 * (shutdown.ts). Stderr that cannot be written leaves nowhere to say anything: its errors are let go, so a
 * server whose terminal closed still stops cleanly. `exec` writes nothing there: its stdout is COMMAND's, whose
 * exit code stands whatever becomes of oclif's last empty write.
 */
function exitOnOutputFailure(commandsOwn: boolean): void {
  // once a process: a test runs many command lines in one
  if (outputWatched) return
  outputWatched = true
  process.stdout.prependListener('error', (error: NodeJS.ErrnoException) => {
    // once exec has set COMMAND's exit code (its help has none): oclif's listener would throw over it
    if (commandsOwn && process.exitCode !== undefined) process.exit()
    if (readerGone(error)) return
    process.stderr.write(`Error: could not write the output to stdout (${error.message}).\n`)
    process.exit(1)
  })
  process.stderr.on('error', () => {})
}

/**
 * `--version --json`, which a script reads as it reads every command's `--json` (docs/cli.md, "Flags and exit
 * codes"): oclif prints its line of text whatever follows `--version`.
 */
function printVersion(root: string): true {
  const {name, version} = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const {platform, arch} = process
  console.log(JSON.stringify({name, version, node: process.version, platform, arch}, null, 2))
  return true
}

/** False when something oclif reads at start-up could change the output: debug or JSON settings, a colour theme, hooks or plugins. */
async function plainSetup(): Promise<boolean> {
  const {env} = process
  if (process.platform === 'win32' || env.DEBUG || env.TABLEPAY_DEBUG || env.TABLEPAY_CONTENT_TYPE) return false
  // node:os only when HOME is unset: every module loaded counts in a start-up this short
  const home = env.HOME || (await import('node:os')).homedir()
  const configDir = env.TABLEPAY_CONFIG_DIR || join(env.XDG_CONFIG_HOME || join(home, '.config'), 'tablepay')
  return !existsSync(join(configDir, 'theme.json'))
}

const TOPIC_FLAGS_HOOK = './dist/cli/hooks/topic-flags.js'

interface LeanManifest {
  version?: string
  commands?: Record<string, {flags: Record<string, ManifestFlag>}>
  /** The plugins the build found hooking nothing a run of these commands calls (scripts/lean-entry.js). */
  plugins?: string[]
}

/**
 * The lean commands' flags as oclif's manifest has them (cut from it at build: scripts/lean-entry.js),
 * only if they match this package and nothing hooks into a run of them.
 */
function readManifest(root: string): LeanManifest | undefined {
  try {
    const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
    // command_not_found runs only for a command that does not exist, and the init hook of topic-flags.ts
    // acts only on a topic run with flags: never for verify or sign
    const hooks = Object.entries(pjson.oclif?.hooks ?? {}).filter(
      ([event, target]) => event !== 'command_not_found' && !(event === 'init' && target === TOPIC_FLAGS_HOOK),
    )
    if (hooks.length > 0 || pjson.oclif?.theme) return undefined
    const manifest: LeanManifest = JSON.parse(readFileSync(join(root, 'dist', 'cli', 'lean-flags.json'), 'utf8'))
    const plugins: string[] = pjson.oclif?.plugins ?? []
    if (!plugins.every((name) => manifest.plugins?.includes(name))) return undefined
    return manifest.version === pjson.version ? manifest : undefined
  } catch {
    return undefined
  }
}

/**
 * The flags as oclif would parse them, or undefined when the command line
 * holds anything but `--name value`, `--name=value`, `-c value` and known
 * booleans, each at most once, with values oclif would accept, or when an
 * option flag not in `options` is given or set in the environment.
 */
function parseFlags(
  argv: readonly string[],
  specs: Record<string, ManifestFlag>,
  options: LeanCommand['options'],
): Record<string, unknown> | undefined {
  const valueOf = (spec: ManifestFlag, text: string) =>
    Object.hasOwn(options, spec.name) ? options[spec.name]!(text) : undefined
  const tokens = tokenize(argv, specs)
  if (!tokens) return undefined
  const values: Record<string, unknown> = {}
  for (const {spec, text} of tokens) {
    if (Object.hasOwn(values, spec.name)) return undefined
    if (spec.type === 'boolean') {
      if (spec.env) return undefined
      values[spec.name] = true
      continue
    }
    // a value that looks like a flag is oclif's to judge, after `=` too: it refuses `--data=--json`
    if (text === undefined || text === '' || (text.startsWith('-') && text !== '-')) return undefined
    const value = valueOf(spec, text)
    if (value === undefined) return undefined
    values[spec.name] = value
  }
  for (const spec of Object.values(specs)) {
    if (Object.hasOwn(values, spec.name)) continue
    const fromEnv = spec.env ? process.env[spec.env] : undefined
    if (fromEnv) {
      if (spec.type === 'boolean') return undefined
      values[spec.name] = valueOf(spec, fromEnv)
      if (values[spec.name] === undefined) return undefined
    } else if (spec.default !== undefined) values[spec.name] = spec.default
  }
  return values
}

/**
 * Each flag of the command line with its spec and its text (none for a boolean), by `node:util`'s `parseArgs`
 * (already loaded with Node); undefined for anything else: an argument, `--`, an unknown flag, a boolean given
 * a value, an option flag without one, and short flags run together (`-jv`) or glued to their value (`-sx`).
 */
function tokenize(
  argv: readonly string[],
  specs: Record<string, ManifestFlag>,
): {spec: ManifestFlag; text?: string}[] | undefined {
  const named = new Map<string, ManifestFlag>()
  const config: Record<string, {type: 'boolean' | 'string'; short?: string}> = {}
  for (const spec of Object.values(specs)) {
    for (const name of [spec.name, ...(spec.aliases ?? [])]) {
      named.set(name, spec)
      config[name] = {type: spec.type === 'boolean' ? 'boolean' : 'string'}
    }
    if (spec.char) config[spec.name]!.short = spec.char
  }
  let tokens
  try {
    tokens = parseArgs({args: [...argv], options: config, strict: true, tokens: true}).tokens
  } catch {
    return undefined
  }
  const flags = []
  for (const token of tokens) {
    if (token.kind !== 'option') return undefined
    if (token.rawName.length === 2 && argv[token.index] !== token.rawName) return undefined
    flags.push({spec: named.get(token.name)!, text: token.value})
  }
  return flags
}
