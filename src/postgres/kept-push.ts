import type pg from 'pg'
import {COLUMNS} from './schema.js'
import {LOCK_TIMEOUT_S} from './unit-sql.js'

/** A kept check's push: its account, the check's text as kept, its row and its events' rows (`rowValues`). */
export interface KeptPush {
  accountId: string
  kept: string
  check: readonly (string | null)[]
  events: readonly (readonly (string | null)[])[]
}

const CHECK_COLUMNS = ['id', 'account_id', 'doc', ...COLUMNS.checks]
const EVENT_COLUMNS = ['id', 'account_id', 'doc', ...COLUMNS.events]

/** The statement of a push with `events` events, made once per count. */
const texts = new Map<number, string>()

/**
 * A kept check's push whole, for an instance surely alone (docs/postgres.md,
 * "The round trips of a push"): one statement of the extended protocol,
 * which is its own transaction. It sets the lock timeout every unit has and
 * takes the account's lock, shared, before the check's row lock; writes the
 * check only where its stored text is the kept one; its events only if it
 * did; and answers the commit number, with no row when the check changed
 * since it was kept. As a PL/pgSQL function of the same steps, called
 * between `BEGIN` and `COMMIT` with its values as literals, it took
 * PostgreSQL about 1.7 × the CPU per push (docs/postgres.md, "Speed").
 * `locked` runs once, before the update: its functions are volatile, so no
 * PostgreSQL folds it into the query (`MATERIALIZED`, which says so, is
 * PostgreSQL 12's and later).
 */
export function keptPush({accountId, kept, check, events}: KeptPush): pg.QueryConfig {
  let text = texts.get(events.length)
  if (text === undefined) texts.set(events.length, (text = statement(events.length)))
  return {name: `tp_kept_push_${events.length}`, text, values: [accountId, kept, ...check, ...events.flat()]}
}

function statement(events: number): string {
  let n = 2
  const next = () => `$${++n}::text`
  const check = CHECK_COLUMNS.map((column) => [column, column === 'doc' ? `${next()}::json` : next()] as const)
  const [id, set] = [check[0]![1], check.slice(1)]
  const rows = Array.from({length: events}, (_, i) => `(${EVENT_COLUMNS.map(next).join(', ')}, ${i})`)
  const added = `, added AS (INSERT INTO events (${EVENT_COLUMNS.join(', ')})
      SELECT ${EVENT_COLUMNS.map((column) => (column === 'doc' ? 'e.doc::json' : `e.${column}`)).join(', ')}
      FROM pushed, (VALUES ${rows.join(', ')}) AS e (${EVENT_COLUMNS.join(', ')}, n) ORDER BY e.n)`
  return `WITH locked AS (SELECT set_config('lock_timeout', '${LOCK_TIMEOUT_S}s', true),
      pg_advisory_xact_lock_shared(hashtextextended('account-records:' || $1::text, 0))),
    pushed AS (UPDATE checks SET ${set.map(([column, value]) => `${column} = ${value}`).join(', ')} FROM locked
      WHERE id = ${id} AND doc::text = $2::text RETURNING 1)${events > 0 ? added : ''}
    SELECT nextval('tablepay_commits') AS commit FROM pushed`
}
