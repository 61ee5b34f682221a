import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {exitOf, failureJson} from './cli-error.js'

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

/** The commands that can run without oclif, each loading only its own logic. */
const COMMANDS: Record<string, () => Promise<Run>> = {
  verify: async () => (await import('./signing/verify.js')).verifyDelivery,
  sign: async () => (await import('./signing/sign.js')).signDelivery,
}

const wholeNumber = (text: string) =>
  /^\d+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : undefined

/** Values oclif turns into something else than a string (integer and url flags). `undefined`: a value oclif would refuse. */
const PARSE: Record<string, (text: string) => unknown> = {
  tolerance: wholeNumber,
  timestamp: wholeNumber,
  'forward-to': (text) => (URL.canParse(text) ? new URL(text) : undefined),
}

/**
 * Runs `verify` or `sign` as oclif would, without loading oclif. Returns
 * false, having done nothing, for anything it does not handle exactly as
 * oclif does (help, an unknown, repeated or invalid flag, a theme, debug
 * output, plugins): the caller then hands the command line to oclif. A
 * failure is reported by oclif's own error handler, loaded then.
 *
 * `root` is the package's folder. bin/run.js runs this module bundled into
 * one CommonJS file (scripts/lean-entry.js), where `import.meta` is not.
 *
 * @example
 * if (!(await runLean(process.argv.slice(2), root))) await execute({dir: root})
 */
export async function runLean(argv: readonly string[], root: string): Promise<boolean> {
  const [id, ...rest] = argv
  if (id === undefined || !Object.hasOwn(COMMANDS, id) || !(await plainSetup())) return false
  const flagSpecs = readManifest(root)?.commands?.[id]?.flags
  const flags = flagSpecs && parseFlags(rest, flagSpecs)
  // `sign --forward-to` waits for a receiver, seconds maybe, which oclif's path shows with a spinner
  if (!flags || flags['forward-to'] !== undefined) return false
  const json = flags.json === true
  const run = await COMMANDS[id]!()
  try {
    const result = await run(flags, (text) => json || console.log(text))
    if (json && result) console.log(JSON.stringify(result, null, 2))
  } catch (error) {
    if (json) {
      // as Command's catch on oclif's path: a wrong command line exits 2 with --json too
      process.exitCode = exitOf(error) ?? 1
      console.log(JSON.stringify(failureJson(error), null, 2))
    } else {
      // prints the error as oclif does, and exits with its code
      const {handle} = await import('@oclif/core/handle')
      await handle(error as Error)
    }
  }
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

/**
 * The lean commands' flags as oclif's manifest has them (cut from it at build: scripts/lean-flags.js),
 * only if they match this package and nothing hooks into a run of them.
 */
function readManifest(root: string): {commands?: Record<string, {flags: Record<string, ManifestFlag>}>} | undefined {
  try {
    const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
    // command_not_found runs only for a command that does not exist, and the init hook of topic-flags.ts
    // acts only on a topic run with flags: never for verify or sign
    const hooks = Object.entries(pjson.oclif?.hooks ?? {}).filter(
      ([event, target]) => event !== 'command_not_found' && !(event === 'init' && target === TOPIC_FLAGS_HOOK),
    )
    if (hooks.length > 0 || pjson.oclif?.plugins || pjson.oclif?.theme) return undefined
    const manifest = JSON.parse(readFileSync(join(root, 'dist', 'cli', 'lean-flags.json'), 'utf8'))
    return manifest.version === pjson.version ? manifest : undefined
  } catch {
    return undefined
  }
}

/**
 * The flags as oclif would parse them, or undefined when the command line
 * holds anything but `--name value`, `--name=value`, `-c value` and known
 * booleans, each at most once, with values oclif would accept.
 */
function parseFlags(argv: readonly string[], specs: Record<string, ManifestFlag>): Record<string, unknown> | undefined {
  const specList = Object.values(specs)
  const values: Record<string, unknown> = {}
  for (let i = 0; i < argv.length; i++) {
    const long = /^--([a-z][a-z-]*)(?:=(.+))?$/s.exec(argv[i]!)
    const short = /^-([A-Za-z])$/.exec(argv[i]!)
    const spec = long ? specNamed(specs, long[1]!) : short ? specList.find((s) => s.char === short[1]) : undefined
    if (!spec || Object.hasOwn(values, spec.name)) return undefined
    if (spec.type === 'boolean') {
      if (long?.[2] !== undefined || spec.env) return undefined
      values[spec.name] = true
      continue
    }
    const text = long?.[2] ?? argv[++i]
    // a value that looks like a flag is oclif's to judge
    if (text === undefined || text === '' || (long?.[2] === undefined && text.startsWith('-') && text !== '-'))
      return undefined
    const value = (PARSE[spec.name] ?? String)(text)
    if (value === undefined) return undefined
    values[spec.name] = value
  }
  for (const spec of specList) {
    if (Object.hasOwn(values, spec.name)) continue
    const fromEnv = spec.env ? process.env[spec.env] : undefined
    if (fromEnv) {
      if (spec.type === 'boolean') return undefined
      values[spec.name] = (PARSE[spec.name] ?? String)(fromEnv)
      if (values[spec.name] === undefined) return undefined
    } else if (spec.default !== undefined) values[spec.name] = spec.default
  }
  return values
}

/** The flag called `name`, by its name or one of its aliases (`--post` for `--forward-to`). */
function specNamed(specs: Record<string, ManifestFlag>, name: string): ManifestFlag | undefined {
  return Object.hasOwn(specs, name) ? specs[name] : Object.values(specs).find((s) => s.aliases?.includes(name))
}
