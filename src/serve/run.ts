import {resolve} from 'node:path'
import {cliError} from '../cli/cli-error.js'
import {keepHeapNearLive} from '../cli/heap.js'
import type {Output} from '../cli/output.js'
import {untilSignalled} from '../cli/shutdown.js'
import {renderRequestLine} from '../cli/views/request.js'
import {readyJson, renderBanner} from '../cli/views/serve-banner.js'
import {wholeMs} from '../domain/duration.js'
import {DEFAULT_RETENTION} from '../domain/retention.js'
import {type RunningServer, startServer} from '../server/start.js'
import {displayUrl} from '../shared/database-url.js'
import {diskFailure, dirRemoved, Removed} from '../shared/disk-failure.js'
import {UnusableInputError} from '../shared/unusable-input.js'

/** The flags of `serve` once parsed (cli/flags/serve.ts says what each means), which `exec` takes too. */
export interface ServeFlags {
  port: number
  host: string
  /** Without it, with --memory or with --database, nothing is kept on disk. */
  data?: string
  memory?: boolean
  database?: string
  seed?: string
  /** Exported snapshots to restore at start. */
  import?: string[]
  fsync?: boolean
  repair?: boolean
  'retry-schedule'?: number[]
  'time-scale'?: number
  'disable-after': number
  /** Seconds. */
  'receiver-timeout'?: number
  cors?: string[]
  'public-url'?: string
  log?: boolean
  'request-log': number
  'rate-limit'?: number
  'strict-urls'?: boolean
  /** Seconds. */
  'event-retention'?: number
  'max-events': number
}

/**
 * Starts the server `flags` describe, its access lines (`--log`) going to
 * `out`: the start of `serve` and of `exec`, which does not `register` its server
 * (its command gets the URL and keys; clients elsewhere must not find it beside a `serve`). A server that cannot start is a
 * CLI error: exit 2 for a --data or --seed that cannot be used (a wrong
 * command line, as a wrong flag is), else 1.
 *
 * @example
 * const server = await startServing({port: 0, host: '127.0.0.1', ...}, outputFor(false))
 */
export async function startServing(
  flags: ServeFlags,
  out: Output,
  {register = true}: {register?: boolean} = {},
): Promise<RunningServer> {
  const logLines = flags.log ?? Boolean(process.stdout.isTTY)
  const dataDir = dataDirOf(flags)
  // they act on a data dir's files: without one they would do nothing, unsaid
  const idle = dataDir === undefined ? (['fsync', 'repair'] as const).find((name) => flags[name]) : undefined
  if (idle) {
    const store = flags.database ? 'the records live in the database' : 'everything is kept in memory'
    throw await cliError(`--${idle} is for a data dir, and ${store}.`, {
      code: 'invalid_usage',
      exit: 2,
      suggestions: [`Give --data DIR, or leave out --${idle}.`],
    })
  }
  const starting = startServer({
    port: flags.port,
    host: flags.host,
    dataDir,
    database: flags.database,
    seedFile: flags.seed,
    imports: flags.import,
    fsync: flags.fsync,
    repair: flags.repair,
    retrySchedule: flags['retry-schedule'],
    timeScale: flags['time-scale'],
    disableAfter: flags['disable-after'],
    receiverTimeoutMs: flags['receiver-timeout'] === undefined ? undefined : wholeMs(flags['receiver-timeout']),
    strictUrls: flags['strict-urls'],
    retention: {
      eventMaxAgeMs: (flags['event-retention'] ?? DEFAULT_RETENTION.eventMaxAgeMs / 1000) * 1000,
      maxEvents: flags['max-events'],
    },
    register,
    cors: flags.cors,
    publicUrl: flags['public-url'],
    requestLog: flags['request-log'],
    rateLimit: flags['rate-limit'],
    accessLog: logLines
      ? (line) => out.emit({object: 'request', id: line.request_id, ...line}, renderRequestLine(line))
      : undefined,
  })
  // a database behind a firewall takes its connect timeout to refuse, and a long journal seconds to read
  return out.wait(startingText(flags.database, dataDir), starting).catch(async (error: Error) => {
    const failed = dataDir && diskFailure('starting on', dataDir, error)
    throw await cliError(failed ? `${failed} Everything it saved is kept: then start again.` : error.message, {
      code: 'server_start_failed',
      exit: error instanceof UnusableInputError ? 2 : 1,
    })
  })
}

/** The data dir `flags` keep the records in: none with --memory, with --database or without --data. */
const dataDirOf = (flags: ServeFlags): string | undefined =>
  flags.memory || flags.database || flags.data === undefined ? undefined : resolve(flags.data)

/** What a start that takes its time says it waits for. */
function startingText(database: string | undefined, dataDir: string | undefined): string {
  if (database) return `Starting tablepay on ${displayUrl(database)}`
  return dataDir ? `Starting tablepay: reading ${dataDir}` : 'Starting tablepay'
}

/**
 * What `tablepay serve` does once its flags are parsed, by oclif
 * (commands/serve.ts) or by the lean path, which runs it without loading
 * oclif (cli/lean-entry.ts; docs/benchmarks.md, "Start-up of serve"):
 * starts the server, prints that it is ready, and stops it cleanly on
 * SIGINT, SIGTERM or SIGHUP (cli/shutdown.ts).
 *
 * @example
 * await serve({port: 0, host: '127.0.0.1', data: '.tablepay', ...}, outputFor(true))
 */
export async function serve(flags: ServeFlags, out: Output): Promise<void> {
  // from the start on: a supervisor may stop a start that takes its time (a CI job's timeout), which then stops
  // as a running server does once the start has ended, and prints no ready line
  let stopping = false
  let slow: NodeJS.Timeout | undefined
  const kept = Boolean(flags.database) || dataDirOf(flags) !== undefined
  const signalled = untilSignalled().then(() => {
    stopping = true
    out.notice('Stopping tablepay…')
    // a stop waits for what is under way: on a dead network, a statement's ~20 s (docs/postgres.md); say the way out
    slow = setTimeout(() => out.notice(stillStopping(kept)), SLOW_STOP_MS).unref()
  })
  const server = await startServing(flags, out)
  // this process is the server: its heap is tuned for months of pushes, unlike a test runner that embeds one;
  // only once the data dir is read, which a heap kept near what it holds would collect many times over
  keepHeapNearLive()
  if (!stopping) out.emit(readyJson(server), renderBanner(server))
  if (server.unlisted) out.notice(server.unlisted)

  await signalled
  await server
    .close()
    .catch((error: unknown) => {
      const dir = server.dataDir
      const failed = dir && diskFailure('stopping on', dir, error)
      if (!failed) throw error
      // the stop's compaction failed, and nothing is lost (unless the dir itself went): a stop all the same (exit 0)
      out.notice(
        dirRemoved(dir, error) || error instanceof Removed
          ? failed
          : `${failed} Every change it answered is in its journal: the next start reads it.`,
      )
    })
    .finally(() => clearTimeout(slow))
}

/** How long a stop runs before `serve` says how to end it at once, in ms. */
const SLOW_STOP_MS = 2000

/** What a slow stop says: how to end it at once, and, unless in memory, that nothing answered is lost then. */
const stillStopping = (kept: boolean) =>
  `Still stopping: waiting for what is under way. Ctrl+C again stops at once${kept ? '; every change it answered is kept' : ''}.`
