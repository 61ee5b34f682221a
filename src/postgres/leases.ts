import type {DeliveryRecord, EventRecord, WebhookEndpointRecord} from '../domain/records.js'
import type {Claim} from '../service/storage.js'
import type {Sql} from './reader.js'

/**
 * The first key of the session advisory lock each instance holds for its
 * life (the second is its owner number): an instance whose lock is gone is
 * gone, and its leases with it (docs/postgres.md, "Delivery across instances").
 */
export const LIFE_LOCK = 0x7470

/**
 * The schema version that adds leases: two real columns on `deliveries`
 * (never in the record's document, so answers stay byte for byte the data
 * dir's), and a trigger that ends the lease whenever the delivery itself is
 * written (its attempt recorded, a retry, a cancel).
 */
export const LEASE_MIGRATION: readonly string[] = [
  'ALTER TABLE deliveries ADD COLUMN IF NOT EXISTS lease_owner integer, ' +
    'ADD COLUMN IF NOT EXISTS lease_until timestamptz',
  `CREATE OR REPLACE FUNCTION tablepay_delivery_written() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF NEW.doc::text IS DISTINCT FROM OLD.doc::text THEN
       NEW.lease_owner := NULL;
       NEW.lease_until := NULL;
     END IF;
     RETURN NEW;
   END $$`,
  // not CREATE OR REPLACE TRIGGER, which PostgreSQL 13 and older lack
  'DROP TRIGGER IF EXISTS deliveries_lease_ends ON deliveries',
  'CREATE TRIGGER deliveries_lease_ends BEFORE UPDATE OF doc ON deliveries ' +
    'FOR EACH ROW EXECUTE FUNCTION tablepay_delivery_written()',
]

/** The delivery is pending with this attempt due: a claim for an older due time finds it gone. */
const DUE = `status = 'pending' AND (doc->>'next_attempt_at')::timestamptz = $2::timestamptz`

/** The lease is free: none, this instance's own, run out, or its owner's session is gone. */
const FREE = `CASE
  WHEN lease_owner IS NULL OR lease_owner = $3 THEN true
  WHEN lease_until < clock_timestamp() THEN true
  ELSE NOT EXISTS (
    SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2 AND classid = ${LIFE_LOCK}
      AND objid = lease_owner::oid AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))
  END`

/**
 * What an attempt sends and to where, read with its claim: the account's endpoint with the delivery's
 * `endpoint_id` (kept under its id, or under the account's key for an id the caller chose: `endpointOf`'s
 * rule, src/service/endpoints.ts), and the event.
 */
const TARGET = `(SELECT w.doc FROM webhook_endpoints w WHERE w.account_id = d.account_id AND w.doc->>'id' = d.endpoint_id
    LIMIT 1) AS endpoint,
  (SELECT e.doc FROM events e WHERE e.id = d.event_id) AS event`

/**
 * Claims the delivery `id` for its attempt due at `dueAt` (scheduler ms):
 * one conditional UPDATE, so of two instances asking at once one wins and
 * the other, which waits on the row, then finds it leased. The delivery,
 * with its endpoint and event in the same round trip, when `owner` won;
 * `'held'` when another live instance holds it for that attempt; undefined
 * when it is no longer pending with that attempt due.
 * `sql` is the storage's, so a database out of reach fails the storage.
 *
 * @example
 * const claim = await claimDelivery(sql, 'dlv_…', Date.parse(delivery.next_attempt_at), 1234, 40_000)
 */
export async function claimDelivery(
  sql: Sql,
  id: string,
  dueAt: number,
  owner: number,
  leaseMs: number,
): Promise<Claim> {
  const due = new Date(dueAt).toISOString()
  const claimed = await sql.query<{
    doc: DeliveryRecord
    endpoint: WebhookEndpointRecord | null
    event: EventRecord | null
  }>(
    `UPDATE deliveries d SET lease_owner = $3, lease_until = clock_timestamp() + make_interval(secs => $4)
     WHERE id = $1 AND ${DUE} AND ${FREE} RETURNING doc, ${TARGET}`,
    [id, due, owner, leaseMs / 1000],
  )
  const row = claimed.rows[0]
  if (row) return {delivery: row.doc, endpoint: row.endpoint ?? undefined, event: row.event ?? undefined}
  // a new statement, so a new snapshot: the claim that won while this one waited on the row is seen
  const held = await sql.query(`SELECT 1 FROM deliveries WHERE id = $1 AND ${DUE} AND lease_owner IS NOT NULL`, [
    id,
    due,
  ])
  return held.rows.length > 0 ? 'held' : undefined
}
