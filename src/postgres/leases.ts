import type {DeliveryRecord, EventRecord, WebhookEndpointRecord} from '../domain/records.js'
import {isoTime} from '../domain/timestamps.js'
import type {Claim} from '../service/storage.js'
import type {Sql} from './reader.js'
import {text, untext} from './text.js'

/**
 * The schema version that adds leases: two real columns on `deliveries`
 * (never in the record's document, so answers stay byte for byte the data
 * dir's), and a trigger that ends the lease when the delivery itself is
 * written (LEASE_ENDS_MIGRATION says which writes).
 */
export const LEASE_MIGRATION: readonly string[] = [
  'ALTER TABLE deliveries ADD COLUMN IF NOT EXISTS lease_owner integer, ' +
    'ADD COLUMN IF NOT EXISTS lease_until timestamptz',
  leaseEnds('NEW.doc::text IS DISTINCT FROM OLD.doc::text'),
  // not CREATE OR REPLACE TRIGGER, which PostgreSQL 13 and older lack
  'DROP TRIGGER IF EXISTS deliveries_lease_ends ON deliveries',
  'CREATE TRIGGER deliveries_lease_ends BEFORE UPDATE OF doc ON deliveries ' +
    'FOR EACH ROW EXECUTE FUNCTION tablepay_delivery_written()',
]

/**
 * The schema version after which only a write that records an attempt ends the delivery's lease. A retry, a
 * cancel or a supersede while an attempt is out leaves that attempt's lease, so no instance makes the retry's
 * attempt until that one is recorded, as on a data dir (docs/postgres.md, "Delivery across instances"). A
 * record that makes the delivery succeeded or dead says so in the `status` column; only a write that keeps
 * the status parses the documents to compare their attempts (about 10 µs a row).
 */
export const LEASE_ENDS_MIGRATION: readonly string[] = [
  leaseEnds(
    `OLD.lease_owner IS NOT NULL AND (` +
      `(NEW.status IS DISTINCT FROM OLD.status AND NEW.status IN ('succeeded', 'dead')) OR ` +
      `(NEW.status IS NOT DISTINCT FROM OLD.status ` +
      `AND json_array_length(NEW.doc->'attempts') <> json_array_length(OLD.doc->'attempts')))`,
  ),
]

/** The trigger's function: a write of a delivery for which `ends` holds ends its lease. */
function leaseEnds(ends: string): string {
  return `CREATE OR REPLACE FUNCTION tablepay_delivery_written() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF ${ends} THEN
       NEW.lease_owner := NULL;
       NEW.lease_until := NULL;
     END IF;
     RETURN NEW;
   END $$`
}

/**
 * The deliveries asked for, `a`, each with its attempt's due time and its lease in seconds: `$1` holds them as
 * a JSON array. PostgreSQL cannot count a JSON array while it plans, as it counts an array, so its plan for
 * one claim serves every other: each connection plans the claim once instead of at each call, which took
 * PostgreSQL about 75 µs per delivery (docs/postgres.md, "Speed").
 */
const ASKED = 'json_to_recordset($1::json) AS a(id text, due timestamptz, secs float8)'

/**
 * Each delivery asked, found by its primary key. Joined on `a.id` alone, a table of a few thousand deliveries
 * made PostgreSQL read every one, and parse every record, for each claim: at 4,000 deliveries 42 ms of its time
 * for one claim of 7, where it takes under 1 ms (docs/postgres.md, "Speed"). As an array computed once, the ids
 * are looked up in the index whatever the table holds.
 */
const ASKED_IDS = `ARRAY(SELECT i.id FROM json_to_recordset($1::json) AS i(id text))`
const BY_ID = `d.id = ANY (${ASKED_IDS}) AND d.id = a.id`

/**
 * Each delivery asked whose row no other transaction holds, locked for the claim: a claim never waits for a
 * row. A transaction left open on one (an instance paused mid-unit, a session of the user's own) would hold
 * every later claim of the instance, which go one batch at a time; the row skipped reads as held, claimed
 * again a second later (docs/postgres.md, "Delivery across instances").
 */
const UNLOCKED = `d.id = ANY (ARRAY(SELECT l.id FROM deliveries l WHERE l.id = ANY (${ASKED_IDS})
    FOR NO KEY UPDATE SKIP LOCKED))`

/**
 * The delivery is pending with the attempt due that was asked of it: a claim for an older due time finds it gone.
 * Its record says whether it is pending, not the `status` column: PostgreSQL could then read the partial index of
 * every pending delivery to find the few asked, all of a backlog's (docs/postgres.md, "Speed"). The due time is
 * met at the millisecond the scheduler reads it to: one finer, as an older build imported, was never claimed.
 */
const DUE = `d.doc->>'status' = 'pending' AND date_trunc('milliseconds', (d.doc->>'next_attempt_at')::timestamptz) = a.due`

/** The life locks (instance.ts) of a sandbox, `first` the key they share, as `pg_locks` shows them held. */
export const lifeLocksHeld = (first: string): string =>
  `locktype = 'advisory' AND granted AND objsubid = 2 AND classid = ${first} ` +
  `AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`

/** An instance's life lock, its keys `first` and `second`, as `pg_locks` shows it held. */
export const lifeLockHeld = (first: string, second: string): string => `${lifeLocksHeld(first)} AND objid = ${second}`

/**
 * The key of the lock an instance's session takes beside its life lock, for the instance itself to test: one
 * bigint made of the life lock's keys, so `pg_locks` never counts it among the life locks.
 */
const aliveKey = (first: string, second: string): string => `((${first}::int8 << 32) | ${second}::int8)`

/** Takes `aliveKey` for the life lock `$1`, `$2`, on the session that holds that lock (instance.ts). */
export const TAKE_ALIVE = `SELECT pg_advisory_lock(${aliveKey('$1', '$2')})`

/** The lease's owner holds its life lock: it is alive, its session here. */
const OWNER_ALIVE = `EXISTS (SELECT 1 FROM pg_locks WHERE ${lifeLockHeld('$3', 'lease_owner::oid')})`

/**
 * The claiming instance (`$2`) holds its life lock: without it, a lease in its name reads to the others as an
 * instance gone, and they would claim and send the attempt too (docs/postgres.md, "Delivery across instances").
 * Its session holds `aliveKey` too, which a shared try cannot take then; taken, it is let go as the statement
 * ends. A look at `pg_locks` instead reads every connection slot's locks: 0.55 ms of the database's CPU per
 * claim at `max_connections=400` (docs/postgres.md, "Speed"). It names no row, so PostgreSQL tries once per
 * statement.
 */
const SELF_ALIVE = `(SELECT NOT pg_try_advisory_xact_lock_shared(${aliveKey('$3', '$2')}))`

/**
 * The lease is free: none, or run out, or another instance's whose session is gone, or the claiming instance's
 * own (`$2`), which claims only while its session is here (SELF_ALIVE): one lost meanwhile may have let another
 * take the attempt over, and making it again here would send it once more (docs/postgres.md, "At least once:
 * the window"). `$3` is the life locks' first key.
 */
const FREE = `CASE
  WHEN lease_owner IS NULL THEN true
  WHEN lease_until < clock_timestamp() THEN true
  WHEN lease_owner = $2 THEN true
  ELSE NOT ${OWNER_ALIVE}
  END`

/**
 * What an attempt sends and to where, read with its claim: the account's endpoint with the delivery's
 * `endpoint_id` (kept under its id, or under the account's key for an id the caller chose: `endpointOf`'s
 * rule, src/service/endpoints.ts), and the event.
 */
const TARGET = `(SELECT w.doc FROM webhook_endpoints w WHERE w.account_id = d.account_id AND w.doc->>'id' = d.endpoint_id
    LIMIT 1) AS endpoint,
  (SELECT e.doc FROM events e WHERE e.id = d.event_id) AS event`

/** A claim asked for: the delivery, its attempt's due time (scheduler ms) and the lease (ms). */
export interface AskedClaim {
  id: string
  dueAt: number
  leaseMs: number
}

/**
 * Claims each delivery asked for its attempt due at `dueAt`, with one
 * conditional UPDATE for all of them: of two instances asking at once one
 * wins each, and the other finds it held. Each answer, in the order
 * asked: the delivery, with its endpoint and event read in the same round
 * trip, when `owner` won; `'held'` when it is still due but another live
 * instance holds it for that attempt, another transaction holds its row, or
 * this instance's own session is gone; undefined when it is no longer
 * pending with that attempt due (a delivery asked twice gets both answers,
 * as its own lease lets it claim again). `owner` and `lifeLock` are the
 * keys of the instance's life lock (instance.ts). `sql` is the storage's,
 * so a database out of reach fails the storage.
 *
 * @example
 * const [claim] = await claimDeliveries(sql, [{id: 'dlv_…', dueAt, leaseMs: 40_000}], 1234, scope.lifeLock)
 */
export async function claimDeliveries(
  sql: Sql,
  asked: readonly AskedClaim[],
  owner: number,
  lifeLock: number,
): Promise<Claim[]> {
  const claimed = await sql.query<{
    id: string
    doc: DeliveryRecord
    endpoint: WebhookEndpointRecord | null
    event: EventRecord | null
  }>(CLAIM, [asJson(asked), owner, lifeLock])
  const won = new Map(claimed.rows.map((row) => [untext(row.id), row]))
  const held = await stillDue(
    sql,
    asked.filter(({id}) => !won.has(id)),
  )
  return asked.map(({id}) => {
    const row = won.get(id)
    if (row) return {delivery: row.doc, endpoint: row.endpoint ?? undefined, event: row.event ?? undefined}
    return held.has(id) ? 'held' : undefined
  })
}

const CLAIM = `UPDATE deliveries d SET lease_owner = $2, lease_until = clock_timestamp() + make_interval(secs => a.secs)
  FROM ${ASKED} WHERE ${SELF_ALIVE} AND ${UNLOCKED} AND ${BY_ID} AND ${DUE} AND ${FREE} RETURNING d.id, d.doc, ${TARGET}`

/**
 * The ids of the claims `lost` that are still due: the claim lost them to another live instance's lease, to
 * another transaction holding the row, or to this instance's own session being gone, and they wait for a
 * later claim instead of leaving the queue. A new statement, so a new snapshot: a claim another instance
 * made meanwhile is seen.
 */
const STILL_DUE = `SELECT d.id FROM deliveries d, ${ASKED} WHERE ${BY_ID} AND ${DUE}`

async function stillDue(sql: Sql, lost: readonly AskedClaim[]): Promise<Set<string>> {
  if (lost.length === 0) return new Set()
  const {rows} = await sql.query<{id: string}>(STILL_DUE, [asJson(lost)])
  return new Set(rows.map((row) => untext(row.id)))
}

/**
 * `ASKED`'s parameter: the ids as the table keeps them (`text`: an imported delivery's may hold a backslash),
 * the due times as `next_attempt_at` is written (`isoTime`), the leases.
 */
const asJson = (asked: readonly AskedClaim[]): string =>
  JSON.stringify(asked.map(({id, dueAt, leaseMs}) => ({id: text(id), due: isoTime(dueAt), secs: leaseMs / 1000})))
