import type {CollectionName} from '../domain/records.js'
import {FAULTS_MIGRATION} from './faults.js'
import {LEASE_ENDS_MIGRATION, LEASE_MIGRATION} from './leases.js'

/**
 * The columns a collection's table has besides `id`, `account_id`, `seq`
 * (creation order) and `doc` (the record, as `json`: unlike `jsonb` it keeps
 * the record's text, so answers are byte for byte those of the other store).
 * These are copied out of the record on each write, for what is looked up or
 * filtered: lists filter on them in SQL, so a page stays a page.
 */
export const COLUMNS: {readonly [C in CollectionName]: readonly string[]} = {
  accounts: ['scratch_of'],
  api_keys: [],
  locations: [],
  checks: ['external_id', 'guest_token', 'status', 'location_id'],
  claims: ['check_id'],
  payments: ['check_id'],
  feedback: ['check_id'],
  idempotency_keys: ['expires_at'],
  events: ['type'],
  webhook_endpoints: [],
  deliveries: ['event_id', 'endpoint_id', 'status'],
  settings: [],
  fan_outs: [],
  // made from the record's text, not copied from a field: its fields before its records (`snapshotHead`)
  snapshots: ['head'],
}

export const COLLECTIONS = Object.keys(COLUMNS) as CollectionName[]

/** Collections each made by a migration of its own, after the first version's. */
const ADDED: readonly CollectionName[] = ['fan_outs', 'snapshots']

/** Further indexes, beyond the primary key and `(account_id, seq)`. */
const INDEXES: {readonly [C in CollectionName]?: readonly string[]} = {
  accounts: ['CREATE INDEX IF NOT EXISTS accounts_scratch_of ON accounts (scratch_of)'],
  // a check is found by its caller's id within the account, and by its guest token: both unique
  checks: [
    'CREATE UNIQUE INDEX IF NOT EXISTS checks_external_id ON checks (account_id, external_id)',
    'CREATE UNIQUE INDEX IF NOT EXISTS checks_guest_token ON checks (guest_token)',
  ],
  deliveries: [
    'CREATE INDEX IF NOT EXISTS deliveries_event_id ON deliveries (event_id)',
    'CREATE INDEX IF NOT EXISTS deliveries_pending ON deliveries (status) WHERE status = $$pending$$',
  ],
}

/** The statements that make a collection's table, with `columns` beyond the four every table has. */
function table(collection: CollectionName, columns = COLUMNS[collection]): string[] {
  const more = columns.map((column) => `, ${column} text`).join('')
  return [
    `CREATE TABLE IF NOT EXISTS ${collection} (id text PRIMARY KEY, account_id text NOT NULL, ` +
      `seq bigserial NOT NULL, doc json NOT NULL${more})`,
    `CREATE INDEX IF NOT EXISTS ${collection}_account_seq ON ${collection} (account_id, seq)`,
    ...(INDEXES[collection] ?? []),
  ]
}

/** The sequence each unit draws its commit number from (src/postgres/storage.ts, `#notice`). */
export const COMMITS = 'tablepay_commits'

/**
 * The schema's versions, each a list of statements run in one transaction
 * under the migration lock; a database remembers the last one it ran
 * (`tablepay_schema`). A new version is appended, never edited.
 */
export const MIGRATIONS: readonly (readonly string[])[] = [
  [
    ...COLLECTIONS.filter((name) => !ADDED.includes(name)).flatMap((name) => table(name)),
    // the places of deleted records, so a list cursor naming one still pages on (docs/api.md, "Lists")
    'CREATE TABLE IF NOT EXISTS deleted (collection text NOT NULL, id text NOT NULL, seq bigint NOT NULL, ' +
      'PRIMARY KEY (collection, id))',
    'CREATE INDEX IF NOT EXISTS deleted_seq ON deleted (collection, seq)',
    // each unit's changes too large for one notification, for the other instances' live streams
    'CREATE TABLE IF NOT EXISTS changes (seq bigserial PRIMARY KEY, at timestamptz NOT NULL DEFAULT now(), ' +
      'changes json NOT NULL)',
  ],
  // delivery leases, for several instances on one database (docs/postgres.md, "Delivery across instances")
  LEASE_MIGRATION,
  // faults shared by every instance (docs/postgres.md, "Faults across instances")
  FAULTS_MIGRATION,
  // commit numbers, so that each record's changes reach the listeners in commit order (docs/postgres.md)
  [`CREATE SEQUENCE IF NOT EXISTS ${COMMITS}`],
  // fan-out marks in a collection of their own, no longer settings; on PostgreSQL a change writes its
  // deliveries itself, so no database holds a mark to move (docs/storage.md, "Deferred fan-out")
  table('fan_outs'),
  // each account's saved states, one record per snapshot (docs/snapshots.md)
  table('snapshots', []),
  // a kept check's lock and comparison, sent with a unit's writes (src/postgres/unit.ts, `KEPT_CHECK`)
  [
    `CREATE OR REPLACE FUNCTION tablepay_kept_check(acct text, ext text, kept text) RETURNS void LANGUAGE plpgsql AS $$
     DECLARE stored text;
     BEGIN
       SELECT doc::text INTO stored FROM checks WHERE account_id = acct AND external_id = ext FOR UPDATE;
       IF stored IS DISTINCT FROM kept THEN
         RAISE EXCEPTION 'tablepay: a kept check changed' USING ERRCODE = 'serialization_failure';
       END IF;
     END $$`,
  ],
  // a kept check's push whole, as instances before src/postgres/kept-push.ts sent it: still there for those
  // an upgrade has not reached yet; its rows are the tables' columns in this version's order
  [
    `CREATE OR REPLACE FUNCTION tablepay_kept_push(acct text, ext text, kept text, chk text[], evts text[][])
     RETURNS bigint LANGUAGE plpgsql AS $$
     BEGIN
       PERFORM pg_advisory_xact_lock_shared(hashtextextended('account-records:' || acct, 0));
       PERFORM tablepay_kept_check(acct, ext, kept);
       INSERT INTO checks (id, account_id, doc, external_id, guest_token, status, location_id)
         VALUES (chk[1], chk[2], chk[3]::json, chk[4], chk[5], chk[6], chk[7])
         ON CONFLICT (id) DO UPDATE SET account_id = excluded.account_id, doc = excluded.doc,
           external_id = excluded.external_id, guest_token = excluded.guest_token, status = excluded.status,
           location_id = excluded.location_id;
       INSERT INTO events (id, account_id, doc, type)
         SELECT evts[i][1], evts[i][2], evts[i][3]::json, evts[i][4] FROM generate_subscripts(evts, 1) AS i ORDER BY i
         ON CONFLICT (id) DO UPDATE SET account_id = excluded.account_id, doc = excluded.doc, type = excluded.type;
       RETURN nextval('tablepay_commits');
     END $$`,
  ],
  // each snapshot's fields before its records, which a list reads instead of its megabytes (src/postgres/snapshots.ts)
  [
    'ALTER TABLE snapshots ADD COLUMN IF NOT EXISTS head text',
    `UPDATE snapshots SET head = left(doc::text, strpos(doc::text, ',"records":') - 1) WHERE head IS NULL`,
  ],
  // only the record of an attempt ends its lease: a retry, a cancel or a supersede leaves it (src/postgres/leases.ts)
  LEASE_ENDS_MIGRATION,
  // a deleted record's account, so that another account's is no cursor (src/postgres/reader.ts)
  ['ALTER TABLE deleted ADD COLUMN IF NOT EXISTS account_id text'],
  // room on each page for a delivery's claim and record: their new versions stay there, and its indexes are not
  // written again (docs/postgres.md, "A delivery's cost")
  ['ALTER TABLE deliveries SET (fillfactor = 80)'],
]
