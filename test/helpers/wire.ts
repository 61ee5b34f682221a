import {PROBED, PROBED_POOLED} from '../../src/postgres/pool.js'

/** The codes of the untyped requests a client may send before its startup message (SSL, GSS encryption). */
const PRE_STARTUP = new Set([80877103, 80877104])

/** One wait for the server: a simple query, or the extended-protocol messages up to a Sync. */
export interface RoundTrip {
  /** The connection it was sent on, numbered from 1 in the order they opened. */
  connection: number
  /** The SQL it carried: the simple query's text, or each Parse's statement. */
  sql: string[]
  /** The named statements its Binds ran (extended protocol), which a connection parses once. */
  named: string[]
}

/**
 * The round trips the clients of a relay (test/helpers/relay.ts, `tap`) send
 * to PostgreSQL, read off the wire: each simple query (`Q`) and each Sync
 * (`S`, which closes a run of extended-protocol messages) is one wait for
 * the server's ReadyForQuery. Authentication, the startup and the settings a
 * connection opens with (`PROBED`, `PROBED_POOLED`) are left out: `probed` holds the
 * connections that sent those.
 *
 * @example
 * const wire = roundTrips()
 * const {db, link, url} = await databaseBehindRelay(wire.tap)
 * wire.trips.length
 */
export function roundTrips() {
  const trips: RoundTrip[] = []
  const probed = new Set<number>()
  let connections = 0
  const tap = () => {
    const connection = ++connections
    let pending = Buffer.alloc(0)
    let started = false
    let parsed: string[] = []
    let named: string[] = []
    return (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk])
      for (;;) {
        if (!started) {
          if (pending.length < 8) return
          const length = pending.readInt32BE(0)
          if (pending.length < length) return
          started = !PRE_STARTUP.has(pending.readInt32BE(4))
          pending = pending.subarray(length)
          continue
        }
        if (pending.length < 5) return
        const length = pending.readInt32BE(1)
        if (pending.length < 1 + length) return
        const type = String.fromCharCode(pending[0]!)
        const body = pending.subarray(5, 1 + length)
        pending = pending.subarray(1 + length)
        if (type === 'Q' && [PROBED, PROBED_POOLED].includes(cString(body, 0))) probed.add(connection)
        else if (type === 'Q') trips.push({connection, sql: [cString(body, 0)], named: []})
        else if (type === 'P') parsed.push(cString(body, body.indexOf(0) + 1))
        else if (type === 'B') named.push(cString(body, body.indexOf(0) + 1))
        else if (type === 'S') {
          trips.push({connection, sql: parsed, named: named.filter(Boolean)})
          parsed = []
          named = []
        }
      }
    }
  }
  return {tap, trips, probed}
}

function cString(body: Buffer, from: number): string {
  return body.toString('utf8', from, body.indexOf(0, from))
}

/**
 * The transactions among `trips`: on each connection, the round trips from
 * one that opens a transaction (`BEGIN`, after the `PREPARE`s it may carry) to the one that ends it (`COMMIT`,
 * `ROLLBACK`), in order.
 */
export function transactions(trips: readonly RoundTrip[]): RoundTrip[][] {
  const open = new Map<number, RoundTrip[]>()
  const done: RoundTrip[][] = []
  for (const trip of trips) {
    const text = trip.sql.join('; ')
    if (/(^|;)\s*BEGIN\b/i.test(text)) open.set(trip.connection, [])
    const current = open.get(trip.connection)
    if (!current) continue
    current.push(trip)
    if (/\b(COMMIT|ROLLBACK)\s*;?\s*$/i.test(text)) {
      done.push(current)
      open.delete(trip.connection)
    }
  }
  return done
}
