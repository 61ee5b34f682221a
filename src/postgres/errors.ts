import {displayUrl} from '../shared/database-url.js'
import {shellWord} from '../shared/shell-word.js'

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
  // a Unix socket's path where no server made one (`postgres://%2Fvar%2Frun%2Fpostgresql/db`): nothing listens
  'ENOENT',
])

/**
 * SQLSTATEs of a database that refuses statements for reasons of its own: it takes no writes (25006: a standby,
 * `default_transaction_read_only`), is out of a resource (disk, memory, a limit such as `temp_file_limit`; not
 * 53300, too many connections: only opening one meets it, and a pool that holds its connections still works),
 * or cancelled the statement (57014: `statement_timeout`, `pg_cancel_backend`).
 */
const REFUSED = new Set(['25006', '53000', '53100', '53200', '53400', '57014'])

/**
 * SQLSTATEs of a statement that finds tablepay's tables, functions or schema gone (42P01, 42883, 3F000):
 * something dropped them while the instance ran, as a schema dropped and made again to reset a sandbox. Only a
 * start makes them again.
 */
const GONE = new Set(['42P01', '42883', '3F000'])

const codeOf = (error: unknown): string | undefined =>
  typeof error === 'object' && error !== null ? (error as {code?: unknown}).code?.toString() : undefined

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** What an error says went wrong: its code, else its message. */
const reasonOf = (error: unknown): string => codeOf(error) ?? messageOf(error)

/** Whether running the unit again may succeed where this attempt failed. */
export function isRetryable(error: unknown): boolean {
  const code = codeOf(error)
  return code !== undefined && RETRYABLE.has(code)
}

/** Whether `error` is a lock waited for past the unit's `lock_timeout` (unit-sql.ts). */
export const isLockWait = (error: unknown): boolean => codeOf(error) === '55P03'

/**
 * A unit that ran out of tries: it lost every race it ran (storage.ts, MAX_ATTEMPTS), or a row it needs stayed
 * locked through its lock waits (MAX_LOCK_WAITS): a transaction left open, by an instance paused mid-unit or a
 * session of the user's own. Nothing was written; the server answers 503 `storage_unavailable` with it.
 */
export class UnitGaveUp extends Error {
  readonly code: string
  /** Whether a lock held elsewhere ended it, rather than races lost. */
  readonly locked: boolean

  /** `lockedS`: how long it waited for locks in all, in seconds. */
  constructor(
    cause: unknown,
    readonly lockedS: number,
  ) {
    const reason = reasonOf(cause)
    // no `cause`, as DatabaseUnavailable has none
    super(`postgres: a unit ran out of tries (${reason})`)
    this.name = 'UnitGaveUp'
    this.code = reason
    this.locked = isLockWait(cause)
  }
}

/**
 * Whether `error` says the database cannot be reached or used (rather
 * than refusing one statement as the API's rules would): a lost or refused
 * connection, a server shutting down, crashed or starting up (57P01–57P03),
 * the database dropped (57P04), a session ended for idling (57P05), a
 * connection not open within the connect timeout; a database that refuses
 * statements for reasons of its own (`REFUSED`) or fails its own I/O (class
 * 58), as a data dir whose disk fails, or whose tablepay tables are gone
 * (`GONE`) (docs/postgres.md, "When the database cannot be reached").
 */
export function isUnavailable(error: unknown): boolean {
  const code = codeOf(error) ?? ''
  if (NETWORK.has(code) || REFUSED.has(code) || GONE.has(code) || /^(08|58)|^57P0[1-5]$/.test(code)) return true
  const message = error instanceof Error ? error.message : ''
  return /Connection terminated|connection error|not queryable|timeout expired/i.test(message)
}

/**
 * Whether `error` says the database answered nothing for too long: a connection it did not open within the connect
 * timeout (node-postgres's `timeout expired`), or one whose keepalives went unanswered (ETIMEDOUT). Such a database
 * holds every statement sent to it for as long as it stays silent (docs/postgres.md, "When the database cannot be
 * reached").
 */
export function answersNothing(error: unknown): boolean {
  return codeOf(error) === 'ETIMEDOUT' || messageOf(error) === 'timeout expired'
}

const NOTHING_LISTENS = 'nothing listens at its address'

/** What a failure's code says of the database, in words, where the code alone says little to a user. */
const MEANINGS: Record<string, string> = {
  '25006': 'it takes no writes: a standby, or default_transaction_read_only',
  // a login refused once the instance runs: what changed since its start
  '28000': "it refused the login: the role made NOLOGIN, or the server's pg_hba.conf",
  '28P01': 'it refused the password: changed since the start?',
  '3D000': 'the database does not exist: dropped or renamed since the start',
  '55000': 'the database takes no new sessions: ALLOW_CONNECTIONS false',
  '53000': 'it is out of a resource',
  '53100': 'its disk is full',
  '53200': 'it is out of memory',
  '53300': "it has no connection left: raise max_connections or the role's CONNECTION LIMIT, or stop an instance",
  '53400': 'a limit of its configuration was reached',
  '57014': 'it cancelled a statement: statement_timeout, or pg_cancel_backend',
  '57P01': 'an administrator or a shutdown ended the session',
  '57P02': 'it crashed',
  '57P03': 'it is starting',
  '57P04': 'the database was dropped',
  '57P05': 'it ended an idle session',
  ECONNREFUSED: NOTHING_LISTENS,
  ENOENT: NOTHING_LISTENS,
  ETIMEDOUT: 'it answers nothing',
  'timeout expired': 'it answers nothing',
}

/**
 * The failure the storage reports while the database cannot be reached or used: the
 * server answers 503 `storage_unavailable` with it (docs/postgres.md).
 */
export class DatabaseUnavailable extends Error {
  readonly code: string
  /**
   * The code, with what it means when that is known (`25006: it takes no writes…`): what a 503 says. The
   * latest try's, once one failed otherwise (`since`).
   */
  meaning: string
  /** Whether tablepay's tables are gone from the database (`GONE`): only a start makes them again. */
  readonly gone: boolean

  /**
   * `said`: what the database or the network said. `stopping`: the failure came as the instance stopped, which
   * nothing heals.
   */
  constructor(
    readonly said: unknown,
    readonly stopping = false,
  ) {
    const reason = reasonOf(said)
    // `said` is no `cause`: h3 would hand that over to the error answer in this error's place
    super(`postgres: the database cannot be reached or used (${reason})`)
    this.name = 'DatabaseUnavailable'
    this.code = reason
    this.meaning = meaningOf(reason)
    this.gone = GONE.has(reason)
  }

  /**
   * A later try to reach the database failed with `said`: the 503 says what keeps it lost now, as a
   * database closed to new sessions after its sessions were ended (docs/postgres.md, "When the database
   * cannot be reached"). This failure stays the one a heal ends.
   */
  since(said: unknown): void {
    this.meaning = meaningOf(reasonOf(said))
  }
}

const meaningOf = (reason: string): string => (MEANINGS[reason] ? `${reason}: ${MEANINGS[reason]}` : reason)

/** node-postgres's error, which has no code, for a URL that asks for SSL of a server that takes none. */
const NO_SSL = 'The server does not support SSL connections'

/** node-postgres's errors, which have no code, for a server that asks a password (SCRAM) of a URL without one. */
const NO_PASSWORD = 'SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a string'
const EMPTY_PASSWORD = 'SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a non-empty string'

/** What to do when the server asks `user`'s password and none was given (nor PGPASSWORD, nor ~/.pgpass). */
const noPassword = (user: string) =>
  `the database asks for ${user}'s password and none was given: put it in the URL ` +
  `(postgres://${user}:password@host:port/database), or in PGPASSWORD`

/** Who the advice names when neither the URL nor the environment names a user (node-postgres's defaults). */
const SOME_USER = 'its user'

/** PostgreSQL's keywords that no name may be unquoted (its reserved ones, and those only a type or function may be). */
const KEYWORDS = new Set(
  (
    'all analyse analyze and any array as asc asymmetric authorization binary both case cast check collate ' +
    'collation column concurrently constraint create cross current_catalog current_date current_role ' +
    'current_schema current_time current_timestamp current_user default deferrable desc distinct do else end ' +
    'except false fetch for foreign freeze from full grant group having ilike in initially inner intersect into ' +
    'is isnull join lateral leading left like limit localtime localtimestamp natural not notnull null offset on ' +
    'only or order outer overlaps placing primary references returning right select session_user similar some ' +
    'symmetric system_user table tablesample then to trailing true union unique user using variadic verbose ' +
    'when where window with'
  ).split(' '),
)

/**
 * A name as SQL takes it in a statement to run: as it is when PostgreSQL reads it unchanged, else quoted (a
 * capital, a dash, a keyword such as `user`); the placeholder for a user not known stays prose.
 */
const sqlName = (name: string) =>
  name === SOME_USER || (/^[a-z_][a-z0-9_$]*$/.test(name) && !KEYWORDS.has(name))
    ? name
    : `"${name.replaceAll('"', '""')}"`

/** A search path's entry as the schema PostgreSQL reads it: unquoted, folded to lower case. */
const schemaOf = (entry: string) =>
  /^".*"$/.test(entry) ? entry.slice(1, -1).replaceAll('""', '"') : entry.toLowerCase()

/**
 * What to do when the database refuses a start, by SQLSTATE, or before it answers by Node's TLS error code or
 * node-postgres's message (`NO_SSL`): `user`, `database` and `schema` (its search path's first) as the URL
 * names them, and what the database `said`.
 */
const REFUSALS: Record<string, (user: string, database: string, schema: string, said: string) => string> = {
  '3D000': (_, database) => `create it (createdb ${shellWord(database)}), or fix the URL`,
  '28P01': () => 'check the user and password in the URL',
  '28000': () => "check the user in the URL, and that the server's pg_hba.conf lets it in",
  // a database closed to new sessions (ALLOW_CONNECTIONS false, as a template's or one being maintained)
  '55000': (_, database) =>
    `let it take connections (ALTER DATABASE ${sqlName(database)} ALLOW_CONNECTIONS true), or fix the URL`,
  // on tables another role made, the user has the schema's rights: it lacks the tables'
  '42501': (user, _, schema, said) => (OWNED.test(said) ? owned(user, schema) : tables(user, schema)),
  // no schema of the search path exists, or may be used
  '3F000': (user, _, schema) =>
    schema === 'public'
      ? tables(user, schema)
      : `CREATE SCHEMA ${sqlName(schema)} if it is missing; ${tables(user, schema)}`,
  '25006': () => 'point tablepay at a database that takes writes: the primary, not a standby',
  // the start's statements make tables and indexes: a statement_timeout of a few ms cancels them
  '57014': (user) =>
    `a statement_timeout cancelled a statement of the start: lift it for ${user} (ALTER ROLE ${sqlName(user)} SET ` +
    'statement_timeout = 0), or in the URL (?options=-c%20statement_timeout%3D0)',
  // pg_terminate_backend, or a fast shutdown: an ended start has changed nothing it would not make again
  '57P01': () =>
    "the database ended the start's connection (an administrator's command, or a shutdown): start again, " +
    "and check that nothing ends tablepay's connections (pg_terminate_backend, a session killer)",
  '53300': () =>
    "each instance holds 8 connections: raise the server's max_connections or the role's CONNECTION LIMIT, " +
    'or stop an instance (docs/postgres.md, "Connections")',
  [NO_PASSWORD]: noPassword,
  [EMPTY_PASSWORD]: noPassword,
  [NO_SSL]: () =>
    'the server takes no SSL: drop sslmode from the URL (with prefer too: tablepay never falls back to a ' +
    "connection without SSL), or turn on the server's ssl",
  DEPTH_ZERO_SELF_SIGNED_CERT: () => untrusted,
  SELF_SIGNED_CERT_IN_CHAIN: () => untrusted,
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: () => untrusted,
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: () => untrusted,
}

/** What to do about a server certificate that Node does not trust (self-signed, or signed by a CA of its own). */
const untrusted =
  "Node does not trust the server's certificate: name the CA that signed it in the URL " +
  '(sslrootcert=/path/to/ca.pem), or, for a sandbox on a network you trust, use sslmode=require, which encrypts ' +
  'without checking the certificate'

/** What the database says of a table or sequence the user may not use or change. */
const OWNED = /^(permission denied for (table|sequence)|must be owner of) /

/** What a user needs whose tables another role owns, as the role that made them at an earlier start. */
const owned = (user: string, schema: string) =>
  `tablepay's tables belong to another role: connect as their owner, or as it GRANT ALL ON ALL TABLES IN ` +
  `SCHEMA ${sqlName(schema)} TO ${sqlName(user)} and GRANT ALL ON ALL SEQUENCES IN SCHEMA ${sqlName(schema)} ` +
  `TO ${sqlName(user)}`

/** What a user who may not make tables in the schema (or use it: no schema to create in) needs. */
const tables = (user: string, schema: string) =>
  `tablepay makes its tables at start: GRANT USAGE, CREATE ON SCHEMA ${sqlName(schema)} TO ${sqlName(user)}, ` +
  `or use a database ${user} owns`

/**
 * What a start that failed on the database at `url` fails with: what the database said, and what to do when
 * that is known (a database missing or closed to new sessions, a login refused or asking a password none gave,
 * no right to make tables, no writes, no connection left, the connection ended by an administrator, SSL asked
 * of a server without it, a certificate not trusted); for another database out of reach, that it cannot
 * connect; `cause` as it was otherwise.
 */
export function startFailure(url: string, cause: unknown): unknown {
  const refusal = REFUSALS[codeOf(cause) ?? (cause instanceof Error ? cause.message : '')]
  if (refusal && URL.canParse(url)) {
    const {username, pathname, searchParams} = new URL(url)
    // as node-postgres fills in what the URL leaves out
    const user = decodeURIComponent(username) || process.env.PGUSER || process.env.USER || SOME_USER
    const database = decodeURIComponent(pathname.slice(1)) || process.env.PGDATABASE || user
    // `?options=-c search_path=team_a,public` (docs/postgres.md, "Flags")
    const schema = schemaOf(/search_path=([^\s,]+)/.exec(searchParams.get('options') ?? '')?.[1] ?? 'public')
    // a failure the storage reported (`DatabaseUnavailable`) says what the database said in its cause; Node 24
    // and later add to a certificate they do not trust "; if the root CA is installed locally, try running
    // Node.js with --use-system-ca", where the refusal says what to do here
    const said = messageOf(cause instanceof DatabaseUnavailable ? cause.said : cause).replace(/; if the root CA .*/, '')
    return new Error(`postgres: ${said} at ${displayUrl(url)}; ${refusal(user, database, schema, said)}`, {cause})
  }
  if (!isUnavailable(cause)) return cause
  const said = `cannot connect to ${displayUrl(url)} (${reasonOf(cause)}); is the database up and the URL right?`
  return new Error(`postgres: ${said}`, {cause})
}

/** `error` as the storage's failure. */
export const unavailable = (error: unknown, stopping = false): Error =>
  error instanceof DatabaseUnavailable && error.stopping === stopping ? error : new DatabaseUnavailable(error, stopping)
