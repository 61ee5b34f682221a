import {displayUrl} from '../shared/database-url.js'

/** SQLSTATEs after which a unit runs again: it lost a race that running again settles. */
const RETRYABLE = new Set([
  '40001', // serialization_failure
  '40P01', // deadlock_detected
  '23505', // unique_violation: another unit made the same check or idempotency key first
  '55P03', // lock_not_available: a lock wait past the unit's lock_timeout
])

/** Node's codes for a connection that could not be made or was lost. */
const NETWORK = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
])

const codeOf = (error: unknown): string | undefined =>
  typeof error === 'object' && error !== null ? (error as {code?: unknown}).code?.toString() : undefined

/** What an error says went wrong: its code, else its message. */
const reasonOf = (error: unknown): string => codeOf(error) ?? (error instanceof Error ? error.message : String(error))

/** Whether running the unit again may succeed where this attempt failed. */
export function isRetryable(error: unknown): boolean {
  const code = codeOf(error)
  return code !== undefined && RETRYABLE.has(code)
}

/**
 * Whether `error` says the database cannot be reached (rather than refusing
 * one statement): a lost or refused connection, a server shutting down,
 * crashed or starting up (57P01–57P03), the database dropped (57P04), a
 * session ended for idling (57P05), a connection not open within the connect
 * timeout.
 */
export function isUnavailable(error: unknown): boolean {
  const code = codeOf(error)
  if (code !== undefined && (NETWORK.has(code) || code.startsWith('08') || /^57P0[1-5]$/.test(code))) return true
  const message = error instanceof Error ? error.message : ''
  return /Connection terminated|connection error|not queryable|timeout expired/i.test(message)
}

/**
 * The failure the storage reports while the database cannot be reached: the
 * server answers 503 `storage_unavailable` with it (docs/postgres.md).
 */
export class DatabaseUnavailable extends Error {
  readonly code: string

  constructor(cause: unknown) {
    const reason = reasonOf(cause)
    super(`postgres: the database cannot be reached (${reason})`, {cause})
    this.name = 'DatabaseUnavailable'
    this.code = reason
  }
}

/** What a start that cannot reach the database at `url` fails with, and what to look at. */
export const cannotConnect = (url: string, cause: unknown): Error =>
  new Error(
    `postgres: cannot connect to ${displayUrl(url)} (${reasonOf(cause)}); is the database up and the URL right?`,
    {
      cause,
    },
  )

/** What to do when the database refuses a start, by SQLSTATE: `user` and `database` as the URL names them. */
const REFUSALS: Record<string, (user: string, database: string) => string> = {
  '3D000': (_, database) => `create it (createdb ${database}), or fix the URL`,
  '28P01': () => 'check the user and password in the URL',
  '28000': () => "check the user in the URL, and that the server's pg_hba.conf lets it in",
  '42501': (user) => tables(user),
  '3F000': (user) => tables(user),
  '53300': () =>
    "each instance holds 8 connections: raise the server's max_connections or the role's CONNECTION LIMIT, " +
    'or stop an instance (docs/postgres.md, "Connections")',
}

/** What a user who may not make tables in the schema (or use it: no schema to create in) needs. */
const tables = (user: string) =>
  `tablepay makes its tables at start: GRANT USAGE, CREATE ON SCHEMA public TO ${user}, or use a database ${user} owns`

/**
 * What a start the database at `url` refused fails with: what it said, and what to do when that is known (a
 * database missing, a login refused, no right to make tables); `cause` as it was otherwise.
 */
export function startRefused(url: string, cause: unknown): unknown {
  const refusal = REFUSALS[codeOf(cause) ?? '']
  if (!refusal || !URL.canParse(url)) return cause
  const {username, pathname} = new URL(url)
  const user = decodeURIComponent(username) || 'its user'
  const database = decodeURIComponent(pathname.slice(1)) || user
  const said = cause instanceof Error ? cause.message : String(cause)
  return new Error(`postgres: ${said} at ${displayUrl(url)}; ${refusal(user, database)}`, {cause})
}

/** `error` as the storage's failure. */
export const unavailable = (error: unknown): Error =>
  error instanceof DatabaseUnavailable ? error : new DatabaseUnavailable(error)
