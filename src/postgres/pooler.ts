import {randomUUID} from 'node:crypto'
import type pg from 'pg'

/** The channel of the notification a starting server sends itself. */
const ECHO = 'tablepay_echo'

/** How long a starting server waits to hear it, in ms: on a session of its own, it comes within a round trip. */
const ECHO_MS = 5000

/**
 * Refuses a database reached through a pooler that lends one server session
 * to many clients, a transaction or a statement at a time (PgBouncer's
 * `transaction` and `statement` modes, most hosted databases' "pooled" port):
 * each instance keeps sessions for its life (advisory locks, a listening
 * connection, prepared statements), which such a pooler hands to other
 * clients, failing their requests. The sign it shows at once: a
 * notification sent from the pool never reaches `listening`, whose session
 * was lent away once its LISTEN ended (docs/postgres.md, "Flags").
 *
 * @example
 * await refuseSharedSessions(listening, pool) // throws through a transaction-mode PgBouncer
 */
export async function refuseSharedSessions(listening: pg.Client, pool: pg.Pool): Promise<void> {
  const token = randomUUID()
  let heard!: () => void
  const echo = new Promise<void>((resolve) => (heard = resolve))
  const hear = ({channel, payload}: pg.Notification) => channel === ECHO && payload === token && heard()
  listening.on('notification', hear)
  let timer: NodeJS.Timeout | undefined
  try {
    await listening.query(`LISTEN ${ECHO}`)
    await pool.query('SELECT pg_notify($1, $2)', [ECHO, token])
    const late = new Promise<boolean>((resolve) => (timer = setTimeout(resolve, ECHO_MS, true)))
    if (await Promise.race([echo.then(() => false), late]))
      throw new Error(
        'postgres: a notification this server sent did not come back to its listening connection: a pooler ' +
          'between them lends one session to many clients (PgBouncer in transaction or statement mode, a hosted ' +
          "database's pooled port); connect directly, or through a pooler in session mode",
      )
    await listening.query(`UNLISTEN ${ECHO}`)
  } finally {
    clearTimeout(timer)
    listening.off('notification', hear)
  }
}
