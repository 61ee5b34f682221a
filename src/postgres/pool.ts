import pg from 'pg'
import {atMost} from '../shared/at-most.js'
import {defaultRootCert} from '../shared/database-url.js'
import {LOCKS_GIVE_UP_S} from './unit-sql.js'

const ignore = () => {}

/**
 * An instance's connections for its statements. One thread keeps a few statements busy at a time; more
 * connections only add database processes that compete for the same cores: on 2 cores shared with
 * PostgreSQL, 10 made the p99 of changing pushes under load about 1.7 × what 6 made, and no more pushes
 * (docs/postgres.md, "Connections").
 */
export const POOL_SIZE = 6

/**
 * What each connection of an instance opens with: `url`, its `sslmode` as libpq takes it (`libpqSsl`), and
 * `tablepay` as its application name unless the URL or PGAPPNAME names one, so that those sharing the
 * database see whose sessions these are (`pg_stat_activity`). A database behind a dead network answers
 * nothing: opening gives up after `connectTimeoutMs`, and keepalives probe a connection 10 s after it last
 * heard anything (the system's default waits 2 hours), so a connection whose database went silent fails
 * rather than holding its request, or its instance's stop (docs/postgres.md, "When the database cannot be
 * reached").
 */
export const connecting = (url: string, connectTimeoutMs?: number): pg.ClientConfig => ({
  connectionString: libpqSsl(url),
  fallback_application_name: 'tablepay',
  connectionTimeoutMillis: connectTimeoutMs,
  keepAlive: true,
  keepAliveInitialDelayMillis: 10_000,
})

/** Whether the database answers a statement on `connection` within `ms`; false without one. */
export const answersWithin = async (connection: pg.Client | undefined, ms: number): Promise<boolean> =>
  connection !== undefined &&
  (await atMost(
    connection.query('SELECT 1').then(
      () => true,
      () => false,
    ),
    ms,
    false,
  )) === true

/** How long a connection's end waits for the database to take it, in ms, before its socket is dropped. */
const END_WITHIN_MS = 1000

/**
 * A connection of an instance's: the pool's, its listening connection, its session. Its end drops the socket
 * once the database has not taken it within END_WITHIN_MS: one that answers nothing (stopped with `kill -STOP`,
 * or behind a path that stopped delivering) never closes its side, and the socket would keep the process alive
 * until it answers again (docs/postgres.md, "When the database cannot be reached"). Ended while it opens, it
 * drops the socket at once, which fails its `connect`: node-postgres's own end leaves that unsettled.
 */
export class Connection extends pg.Client {
  #open = false

  constructor(config?: pg.ClientConfig) {
    super(config)
    // heard before node-postgres's own listener, which hands the connection to `connect`'s caller
    this.connection.once('readyForQuery', () => (this.#open = true))
  }

  override end(): Promise<void>
  override end(callback: (error: Error) => void): void
  override end(callback?: (error: Error) => void): Promise<void> | void {
    if (!this.#open) {
      this.drop()
      return callback ? void process.nextTick(callback) : Promise.resolve()
    }
    const drop = setTimeout(() => this.drop(), END_WITHIN_MS).unref()
    this.connection.stream.once('close', () => clearTimeout(drop))
    return callback ? super.end(callback) : super.end()
  }

  /** Closes the socket now: the statement under way, if any, fails, and the database need not answer. */
  drop(): void {
    this.connection.stream.destroy()
  }
}

/**
 * Asks the database to probe a connection as the instance does (`connecting`): a dropped network otherwise
 * leaves the database holding the instance's connections, its life lock with its session, for the 2 hours
 * of the system's default, and a database that limits connections refuses new ones meanwhile
 * (docs/postgres.md, "When the database cannot be reached"). And sets aside the database's timeout for
 * idle sessions (PostgreSQL 14+), which would end the instance's idle session, another instance then making
 * its attempts out again; and sets its lock timeout to `lockTimeout`.
 */
const probed = (lockTimeout: string): string =>
  "SELECT set_config('tcp_keepalives_idle', '10', false), set_config('tcp_keepalives_interval', '1', false), " +
  `set_config('tcp_keepalives_count', '10', false), set_config('lock_timeout', '${lockTimeout}', false), ` +
  "CASE WHEN current_setting('server_version_num')::int >= 140000 THEN set_config('idle_session_timeout', '0', false) END"

/**
 * The session's and the listening connection's: no lock timeout, so that their waits for the advisory locks
 * the instances take turns by are never refused.
 */
export const PROBED = probed('0')

/**
 * The pool's: a statement outside a unit (a read, a claim, a fault's strike) waits for a lock at most as long
 * as a unit does in all, and then answers 503 (connections.ts), rather than wait for as long as a transaction
 * left open holds it. A unit sets its own lock timeout (unit-sql.ts); a migration its own per try, and none
 * for the advisory lock it waits for (migrations.ts).
 */
export const PROBED_POOLED = probed(`${LOCKS_GIVE_UP_S}s`)

/**
 * `url` with its `sslmode` read as libpq (psql) reads it: `require` encrypts without checking the
 * certificate, `verify-ca` checks it against the CA of `sslrootcert`, else of ~/.postgresql/root.crt,
 * `verify-full` checks it and the host (docs/postgres.md, "Flags"). node-postgres 8 takes every mode as
 * `verify-full` unless the URL says `uselibpqcompat=true`, and warns on stderr that version 9 will not.
 * `no-verify`, node-postgres's own, is left to it: libpq has no such mode.
 */
export function libpqSsl(url: string): string {
  const params = URL.canParse(url) ? new URL(url).searchParams : undefined
  if (!params?.has('sslmode') || params.has('uselibpqcompat') || params.get('sslmode') === 'no-verify') return url
  const root = defaultRootCert(params)
  return `${url}&uselibpqcompat=true${root === undefined ? '' : `&sslrootcert=${encodeURIComponent(root)}`}`
}

/**
 * A pool of `size` connections to `url`, opened as `connecting` says; `made` hears of each as it is made, before
 * it opens. The connect timeout is the client's, not the pool's: the pool's would also end a wait for a busy pool's
 * next free client, and under load make a reachable database count as unreachable (docs/postgres.md, "Connections").
 */
export function newPool(
  url: string,
  size: number,
  connectTimeoutMs: number,
  made: (connection: Connection) => void = ignore,
): pg.Pool {
  const pool = new pg.Pool({
    ...connecting(url),
    max: size,
    // before the client is handed out: a statement sent while another runs is queued by node-postgres 8 only
    verify: (client, done) =>
      void client
        .query(PROBED_POOLED)
        .catch(ignore)
        .then(() => done()),
    Client: class extends Connection {
      constructor(config?: pg.ClientConfig) {
        super({...config, connectionTimeoutMillis: connectTimeoutMs})
        made(this)
      }
    },
  })
  // an idle connection the server closed: the pool drops it and connects anew when next needed
  pool.on('error', ignore)
  // a lost connection fails the statement under way, which its caller hears, and is an 'error' event too, which
  // unheard ends the process. The pool hears it only while the client is idle, and the bytes that bring a new
  // client's ready message may bring a shutdown's error right behind it, before the caller it is handed to can
  // listen: so each client listens from when the pool made it to its end
  pool.on('connect', (client) => client.on('error', ignore))
  return pool
}
