import type pg from 'pg'
import type {FaultRecord} from '../domain/faults.js'
import type {SharedFaults, StoredFault} from '../service/storage.js'
import type {Sql} from './reader.js'
import {inline} from './literal.js'
import {text} from './text.js'
import {lifeLocksHeld} from './leases.js'

/**
 * The schema version that adds faults (docs/postgres.md, "Faults across
 * instances"): the fault's record, and beside it what changes as it strikes,
 * counted by the database so that every instance counts the same.
 */
export const FAULTS_MIGRATION: readonly string[] = [
  'CREATE TABLE IF NOT EXISTS faults (id text PRIMARY KEY, account_id text NOT NULL, seq bigserial NOT NULL, ' +
    'doc json NOT NULL, remaining integer, draws bigint NOT NULL DEFAULT 0)',
  'CREATE INDEX IF NOT EXISTS faults_account_seq ON faults (account_id, seq)',
]

/** A fault with strikes left: one used up is gone, though its row may stay a moment. */
const LEFT = '(remaining IS NULL OR remaining > 0)'

interface Row {
  doc: FaultRecord
  seq: string
  remaining: number | null
}

const stored = ({doc, seq, remaining}: Row): StoredFault => ({fault: {...doc, remaining}, seq: Number(seq)})

/**
 * A fault `$1` of account `$2` (its record `$3`, `remaining` `$4`) added while the account holds fewer than `$5`.
 * The account's row is locked first (a deletion of it under way ends first, and then leaves no row to add to), so
 * additions of one account, through any instance, count in turn. Answers how many the account held, whether it
 * is there, and the fault's row when it was added.
 */
const ADD = `SELECT 1 FROM accounts WHERE id = $2 FOR UPDATE;
  WITH held AS (SELECT count(*)::integer AS n FROM faults WHERE account_id = $2 AND ${LEFT}),
    added AS (INSERT INTO faults (id, account_id, doc, remaining) SELECT $1, $2, $3::json, $4::integer FROM held
      WHERE held.n < $5 AND EXISTS (SELECT 1 FROM accounts WHERE id = $2) RETURNING doc, seq, remaining)
  SELECT held.n AS held, EXISTS (SELECT 1 FROM accounts WHERE id = $2) AS account, added.*
  FROM held LEFT JOIN added ON true`

/** What `ADD` answers: the fault's row is null where nothing was added. */
type Added = {held: number; account: boolean} & {[K in keyof Row]: Row[K] | null}

/**
 * The faults table. Each strike is one conditional UPDATE, so a fault of
 * `times: N` strikes N requests in all, whichever instances they reach.
 * Statements run on the storage's `sql`: a database out of reach fails the
 * storage, and the request is answered 503 `storage_unavailable`, as any other.
 *
 * @example
 * const faults = new PgFaults(sql)
 * await faults.strike('flt_…') // {remaining: 0}, or undefined when another instance took the last one
 */
export class PgFaults implements SharedFaults {
  constructor(private readonly sql: Sql) {}

  #query<R extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    return this.sql.query<R>(text, values)
  }

  async all(accountId?: string): Promise<StoredFault[]> {
    const {rows} = await this.#query<Row>(
      `SELECT doc, seq, remaining FROM faults WHERE ${LEFT} AND ($1::text IS NULL OR account_id = $1) ORDER BY seq`,
      [accountId ?? null],
    )
    return rows.map(stored)
  }

  async add(fault: FaultRecord, limit: number): Promise<StoredFault | number | undefined> {
    const values = [fault.id, fault.account_id, JSON.stringify(fault), fault.remaining, limit]
    // one simple query is one transaction, and under READ COMMITTED each of its statements sees what was committed
    // before it began: the count comes after the lock, so it sees every addition that held the lock before
    const [, added] = (await this.sql.query(inline(ADD, values))) as unknown as pg.QueryResult<Added>[]
    const row = added!.rows[0]!
    if (!row.account) return undefined
    return row.seq === null ? row.held : stored(row as Row)
  }

  async remove(accountId: string, id: string): Promise<boolean> {
    // the id is the caller's, from the path: it may hold a NUL, which a text parameter cannot
    const {rows} = await this.#query(`DELETE FROM faults WHERE id = $1 AND account_id = $2 RETURNING ${LEFT} AS left`, [
      text(id),
      accountId,
    ])
    return rows[0]?.left === true
  }

  async clear(accountId: string): Promise<{count: number; through: number}> {
    const {rows} = await this.#query<{left: boolean; seq: string}>(
      `DELETE FROM faults WHERE account_id = $1 RETURNING ${LEFT} AS left, seq`,
      [accountId],
    )
    const through = rows.reduce((most, row) => Math.max(most, Number(row.seq)), 0)
    return {count: rows.filter((row) => row.left === true).length, through}
  }

  async draw(id: string): Promise<number | undefined> {
    const {rows} = await this.#query<{draws: string}>(
      `UPDATE faults SET draws = draws + 1 WHERE id = $1 AND ${LEFT} RETURNING draws`,
      [id],
    )
    return rows.length > 0 ? Number(rows[0]!.draws) : undefined
  }

  async strike(id: string): Promise<{remaining: number | null} | undefined> {
    const {rows} = await this.#query<{remaining: number | null}>(
      `UPDATE faults SET remaining = remaining - 1 WHERE id = $1 AND ${LEFT} RETURNING remaining`,
      [id],
    )
    const struck = rows[0]
    // the used-up row goes after: its strike is counted already, and no read shows it
    if (struck?.remaining === 0) void this.sql.query('DELETE FROM faults WHERE id = $1', [id]).catch(() => {})
    return struck
  }
}

/**
 * Run by an instance as it starts, before it counts as alive: with no other
 * instance alive, the sandbox restarts, and the faults of its last run go
 * (they must never outlive the test that made them). An instance restarted
 * beside live ones keeps theirs.
 */
export async function clearFaultsWhenAlone(session: pg.Client, lifeLock: number, owner: number): Promise<void> {
  await session.query(
    `DELETE FROM faults WHERE NOT EXISTS (SELECT 1 FROM pg_locks WHERE ${lifeLocksHeld('$1')} AND objid <> $2::oid)`,
    [lifeLock, owner],
  )
}
