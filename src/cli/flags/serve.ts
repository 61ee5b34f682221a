import {Flags} from '@oclif/core'
import {DISABLE_AFTER} from '../../domain/deliveries.js'
import {DEFAULT_RETENTION} from '../../domain/retention.js'
import {REQUEST_LOG_SIZE} from '../../domain/request-log.js'
import {checkDatabaseUrl} from '../../shared/database-url.js'
import {findFile} from '../../shared/package-file.js'
import {RECEIVER_TIMEOUT_MS} from '../../webhooks/send.js'
import {cliError} from '../cli-error.js'
import {duration, durationList, positive, timerDuration} from './duration.js'
import {nonEmpty} from './filter.js'
import {PORT_RANGE} from './port.js'
import {quotedInput} from '../../domain/quoted-input.js'

/** An origin as browsers send it (`scheme://host[:port]`, no path), or `*`. */
function corsOrigin(text: string): string {
  if (text === '*') return text
  const url = URL.canParse(text) ? new URL(text) : undefined
  if (!url || url.origin === 'null' || url.pathname !== '/' || url.search || url.hash || url.username) {
    throw new Error(`${quotedInput(text)} is not an origin: give scheme://host[:port], as a browser sends it, or *.`)
  }
  return url.origin
}

/** A URL a client reaches the server at: http(s), no query or fragment; without its trailing slash. */
function publicUrl(text: string): string {
  const url = URL.canParse(text) ? new URL(text) : undefined
  if (!url || !['http:', 'https:'].includes(url.protocol) || url.search || url.hash || url.username) {
    throw new Error(
      `${quotedInput(text)} is not a URL clients can reach the server at: give http(s)://host[:port][/path].`,
    )
  }
  return url.href.replace(/\/+$/, '')
}

/** --port, whose default is serve's well-known port and exec's free one. */
const port = (fallback: number) =>
  Flags.integer({
    summary: 'Port to listen on; 0 picks a free one. A port in use is an error (exit 1), never another port.',
    default: fallback,
    ...PORT_RANGE,
  })

/** --data, which only `serve` keeps by default. */
const data = Flags.custom<string>({
  char: 'd',
  summary: 'Data directory.',
  // an empty `--data "$DIR"` would put the data files in the working directory itself
  parse: async (text) => nonEmpty(text),
})

/** --log, on stdout or stderr as the command prints. */
const log = (summary: string, fallback?: boolean) =>
  Flags.boolean({summary, default: fallback, allowNo: true, helpGroup: 'TRACING'})

/** The flags of `serve`, which `exec` takes too: the server both start (serve/run.ts says what each becomes). */
/** --database, with `env` as its default (serve's), or without one (exec's: a throwaway store unless asked). */
function database(env?: string) {
  return Flags.custom<string>({
    summary: 'Keep the records in this PostgreSQL database (postgres://…), shared by every instance on it.',
    helpValue: 'URL',
    env,
    parse: async (text) => checkDatabaseUrl(text),
  })()
}

export const serveFlags = {
  port: port(4747),
  host: Flags.custom<string>({
    summary: 'Interface to listen on.',
    default: '127.0.0.1',
    // an empty `--host "$HOST"` would listen on 127.0.0.1, which a container's port mapping cannot reach
    parse: async (text) => nonEmpty(text),
  })(),
  data: data({default: './.tablepay', env: 'TABLEPAY_DATA'}),
  memory: Flags.boolean({summary: 'Keep everything in memory (ignores --data); nothing survives a stop.'}),
  database: database('TABLEPAY_DATABASE_URL'),
  seed: Flags.custom<string>({
    summary:
      'Seed file of accounts, locations and keys to create when missing; fixtures/seed.json is the example the package ships.',
    helpValue: 'FILE',
    // a relative path that is not here is looked up in the package too (docs/api.md)
    parse: async (text) => {
      const found = await findFile(nonEmpty(text))
      if (found === undefined)
        throw new Error(`No seed file at ${text}: give a file that exists, or fixtures/seed.json for the example seed.`)
      return found
    },
  })(),
  import: Flags.custom<string>({
    summary:
      'Start with these exported snapshots (`tablepay snapshots export NAME -o FILE`) restored, each into the account it names.',
    helpValue: 'FILE',
    multiple: true,
    parse: async (text) => {
      const found = await findFile(nonEmpty(text))
      if (found === undefined) throw new Error(`No snapshot file at ${text}: give a file \`snapshots export\` wrote.`)
      return found
    },
  })(),
  fsync: Flags.boolean({summary: 'fsync every flush, to survive power loss (slower).'}),
  repair: Flags.boolean({
    summary:
      'Start on a damaged data dir with what is intact; what is dropped is saved to a repair-….ndjson file in it (docs/storage.md).',
  }),
  'retry-schedule': durationList({
    summary:
      'Waits between delivery attempts, e.g. 1s,2s,5s. Default: 1m,5m,30m,2h,8h,24h, as the real service retries.',
    helpGroup: 'WEBHOOKS',
  }),
  'time-scale': Flags.custom<number>({
    summary: 'Run the scheduler clock N times faster than real time (60: a minute per second).',
    helpGroup: 'WEBHOOKS',
    parse: async (text) => positive(Number(text), text),
  })(),
  'disable-after': Flags.integer({
    summary: 'Dead deliveries in a row that disable an endpoint.',
    default: DISABLE_AFTER,
    min: 1,
    max: Number.MAX_SAFE_INTEGER,
    helpGroup: 'WEBHOOKS',
  }),
  // no `default`: its help would show seconds (10) where a duration is written, and a `defaultHelp` goes into
  // the manifest as the default, which serve's lean path reads as the value (scripts/lean-entry.js)
  'receiver-timeout': timerDuration({
    summary: `How long a receiver has to answer, e.g. 10s or 500ms (default ${RECEIVER_TIMEOUT_MS / 1000}s).`,
    helpGroup: 'WEBHOOKS',
  }),
  cors: Flags.custom<string[]>({
    summary: 'Browser pages of these origins may call the API: ORIGIN[,ORIGIN…], or * for any.',
    helpValue: 'ORIGINS',
    parse: async (text) => text.split(',').map((o) => corsOrigin(o.trim())),
  })(),
  'public-url': Flags.custom<string>({
    summary:
      'The URL clients reach this server at, behind a proxy or load balancer: guest_url links are made from it. Give every instance of one sandbox the same.',
    helpValue: 'URL',
    parse: async (text) => publicUrl(text),
  })(),
  log: log('Print one access line per API request (JSON lines with --json). Default: on when stdout is a terminal.'),
  'request-log': Flags.integer({
    summary: 'Requests the request log keeps per account (GET /v1/sim/requests, `tablepay logs`); 0 turns it off.',
    default: REQUEST_LOG_SIZE,
    min: 0,
    max: Number.MAX_SAFE_INTEGER,
    helpGroup: 'TRACING',
  }),
  'rate-limit': Flags.integer({
    summary: 'Allow N requests a second per account (burst N); more answer 429 with Retry-After. Off by default.',
    min: 1,
    max: Number.MAX_SAFE_INTEGER,
    helpGroup: 'TRACING',
  }),
  'strict-urls': Flags.boolean({
    summary: 'Refuse plain-http endpoint URLs, even on this machine, as the real service does (https only).',
    helpGroup: 'WEBHOOKS',
  }),
  'event-retention': duration({
    summary: 'How long events are kept, e.g. 7d or 12h; older ones go with their finished deliveries. Default: 30d.',
    helpGroup: 'RETENTION',
  }),
  'max-events': Flags.integer({
    summary: 'Most events kept per account; the oldest go first.',
    default: DEFAULT_RETENTION.maxEvents,
    min: 1,
    max: Number.MAX_SAFE_INTEGER,
    helpGroup: 'RETENTION',
  }),
}

/**
 * The flags of `exec`: serve's, but its server is a throwaway one (a free port, and in memory unless
 * --data or --database says otherwise) whose output stays off COMMAND's unless asked for.
 */
export const execFlags = {
  ...serveFlags,
  port: port(0),
  data: data({summary: 'Data directory; without it (or --database) everything stays in memory.'}),
  // not TABLEPAY_DATABASE_URL: a CI job that sets it for other reasons still gets a store of its own
  database: database(),
  log: log('Print one access line per API request, on stderr.', false),
}

/**
 * Refuses --data (on the command line: TABLEPAY_DATA is a default for data dirs, not a choice of store) and
 * --memory beside --database, whose records live in the database; one set in the environment
 * (TABLEPAY_DATABASE_URL) is named, since the user may not know it is.
 *
 * @example
 * const {flags, raw} = await this.parse(Serve)
 * await checkStoreFlags(flags, raw)
 */
export async function checkStoreFlags(
  flags: {database?: string; memory?: boolean},
  raw: readonly {type: string; flag?: string}[],
): Promise<void> {
  const given = (name: string) => raw.some((token) => token.type === 'flag' && token.flag === name)
  const beside = flags.memory ? '--memory' : given('data') ? '--data' : undefined
  if (flags.database === undefined || !beside) return
  const message = given('database')
    ? `${beside} cannot also be provided when using --database: the records live in the database.`
    : `${beside} cannot be used while TABLEPAY_DATABASE_URL is set: the records live in that database. Unset it, or leave out ${beside}.`
  throw await cliError(message, {code: 'invalid_usage', exit: 2})
}
