import pg from 'pg'
import type {CollectionName, Collections} from '../domain/records.js'
import type {Change, UnitOfWork} from '../service/storage.js'
import {UnitWrites} from '../service/unit-writes.js'
import {PgReader, type Sql, text, untext} from './reader.js'
import {COLUMNS} from './schema.js'

type Row = Record<string, unknown>

/**
 * How each unit's transaction begins. A lock waited for longer than its
 * lock_timeout fails with 55P03 and the unit runs again: a backstop against
 * a convoy of units on one row that would otherwise hold requests for long.
 */
const BEGIN = "BEGIN; SET LOCAL lock_timeout = '5s'"

/** A value as an SQL literal: text, a number, NULL, or an array of them (`$1::text[]` becomes `ARRAY[…]::text[]`). */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL'
  if (typeof value === 'string') return pg.escapeLiteral(value)
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  if (Array.isArray(value)) return `ARRAY[${value.map(literal).join(', ')}]`
  throw new Error(`postgres: no literal for ${typeof value}`)
}

/** `sql` with its `$n` placeholders replaced by `values` as literals, to send as (part of) a simple query. */
function inline(sql: string, values: readonly unknown[] = []): string {
  return sql.replace(/\$(\d+)/g, (_, n: string) => literal(values[Number(n) - 1]))
}

/**
 * A unit's connection. The transaction begins with the unit's first
 * statement, in the same simple query, so `BEGIN` costs no round trip of its
 * own (docs/postgres.md, "The round trips of a push"); its values are sent
 * as literals then, as the notification always was.
 */
class UnitSql implements Sql {
  begun = false

  constructor(readonly client: pg.PoolClient) {}

  query<R extends pg.QueryResultRow>(sql: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    if (this.begun) return this.client.query<R>(sql, values)
    return this.simple<R>(values === undefined || values.length === 0 ? sql : inline(sql, values))
  }

  /**
   * Sends `sql` (its values written in as literals) as one simple query, after BEGIN if it is the
   * unit's first; resolves with its last statement's result.
   */
  async simple<R extends pg.QueryResultRow>(sql: string): Promise<pg.QueryResult<R>> {
    return (await this.results<R>(sql)).at(-1)!
  }

  /** The same, resolving with the result of each of its statements. */
  async results<R extends pg.QueryResultRow>(sql: string): Promise<pg.QueryResult<R>[]> {
    const text = this.begun ? sql : `${BEGIN}; ${sql}`
    this.begun = true
    const results = (await this.client.query(text)) as unknown as pg.QueryResult<R> | pg.QueryResult<R>[]
    return Array.isArray(results) ? results : [results]
  }
}

/** One unit of work: one transaction; its writes are collected and sent together with its COMMIT. */
export class PgUnit extends PgReader implements UnitOfWork {
  readonly #writes = new UnitWrites()
  readonly #sql: UnitSql

  constructor(client: pg.PoolClient) {
    const sql = new UnitSql(client)
    super(sql, true)
    this.#sql = sql
  }

  /** Whether the transaction was opened: a unit that sent nothing has nothing to commit or roll back. */
  get begun(): boolean {
    return this.#sql.begun
  }

  /**
   * A transaction-scoped advisory lock on the id, then the read, in one round trip: at READ COMMITTED each
   * statement of the query sees what committed before it began, so the read after the wait sees what the
   * unit that held the lock made. A row lock could not do it: there is no row yet to lock.
   */
  async getExclusive<C extends CollectionName>(collection: C, id: string): Promise<Collections[C] | undefined> {
    const key = literal(`${collection}:${text(id)}`)
    const results = await this.#sql.results<{doc: Collections[C]}>(
      `SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0));
       SELECT doc FROM ${collection} WHERE id = ${literal(text(id))} FOR UPDATE`,
    )
    const doc = results.at(-1)!.rows[0]?.doc
    if (doc === undefined) this.absent.add(`${collection}\u0000${id}`)
    return doc
  }

  put<C extends CollectionName>(collection: C, id: string, record: Collections[C]): void {
    this.#writes.put(collection, id, record)
  }

  delete(collection: CollectionName, id: string): void {
    this.#writes.delete(collection, id)
  }

  async deleteAll(collection: CollectionName, accountId: string): Promise<number> {
    const changes = this.#writes.open
    const result = await this.sql.query<{id: string}>(
      `SELECT id FROM ${collection} WHERE account_id = $1 ORDER BY seq DESC FOR UPDATE`,
      [text(accountId)],
    )
    for (const {id} of result.rows) changes.push([collection, untext(id), null] as Change)
    return result.rows.length
  }

  /** Ends the unit: returns its writes (none the second time), and refuses any more. */
  end(): Change[] {
    return this.#writes.end()
  }

  /**
   * Commits the unit: `changes` (each collection's in one statement), then
   * `notice` (the statement that tells the other instances) and `COMMIT`, as
   * one simple query: one round trip however many collections it writes. A
   * statement that fails skips the rest, the `COMMIT` with them, and the
   * transaction is rolled back as after any failure. Resolves with the
   * `commit` column the notice answers with, if any: the unit's commit
   * number (src/postgres/storage.ts, `#notice`).
   */
  async commit(changes: readonly Change[], notice = ''): Promise<number | undefined> {
    if (!this.begun && changes.length === 0) return undefined
    const statements = [...this.#statements(changes), notice, 'COMMIT'].filter((statement) => statement !== '')
    const results = await this.#sql.results<{commit?: string}>(statements.join(';\n'))
    const commit = notice === '' ? undefined : results.at(-2)?.rows[0]?.commit
    return commit === undefined ? undefined : Number(commit)
  }

  #statements(changes: readonly Change[]): string[] {
    // the last write of each record wins; records keep the order they were first written in (their places)
    const last = new Map<string, Change>()
    for (const change of changes) last.set(`${change[0]}\u0000${change[1]}`, change)
    const byCollection = new Map<CollectionName, {deletes: string[]; inserts: Change[]; upserts: Change[]}>()
    for (const [key, change] of last) {
      const [collection, id, record] = change
      let writes = byCollection.get(collection)
      if (!writes) byCollection.set(collection, (writes = {deletes: [], inserts: [], upserts: []}))
      if (record === null) writes.deletes.push(id)
      else if (this.absent.has(key)) writes.inserts.push(change)
      else writes.upserts.push(change)
    }
    const statements: string[] = []
    for (const [collection, {deletes, inserts, upserts}] of byCollection) {
      if (deletes.length > 0) statements.push(deleteStatement(collection, deletes))
      if (inserts.length > 0) statements.push(insertStatement(collection, inserts, false))
      if (upserts.length > 0) statements.push(insertStatement(collection, upserts, true))
    }
    return statements
  }
}

/** Deletes `ids` from `collection`, keeping their places for list cursors (docs/api.md, "Lists"). */
export function deleteStatement(collection: CollectionName, ids: readonly string[]): string {
  return `WITH gone AS (DELETE FROM ${collection} WHERE id = ANY(${literal(ids.map(text))}::text[]) RETURNING id, seq)
    INSERT INTO deleted (collection, id, seq) SELECT ${literal(collection)}, id, seq FROM gone
    ON CONFLICT (collection, id) DO UPDATE SET seq = excluded.seq`
}

/**
 * One statement for all the puts of a collection, in their order (a new
 * record's place follows it). A record the unit found absent is inserted
 * plainly: if another unit made it meanwhile, the unique key refuses it and
 * the unit runs again, seeing it (an `Idempotency-Key` sent twice at once).
 */
function insertStatement(collection: CollectionName, changes: readonly Change[], upsert: boolean): string {
  const columns = COLUMNS[collection]
  const rows = changes.map(([, id, record]) => {
    const row = record as Row
    const values: (string | null)[] = [text(id), text(row.account_id as string), JSON.stringify(row)]
    for (const column of columns) {
      const value = row[column]
      values.push(value === undefined || value === null ? null : text(String(value)))
    }
    return `(${values.map(literal).join(', ')})`
  })
  const names = ['id', 'account_id', 'doc', ...columns]
  const set = names
    .slice(1)
    .map((name) => `${name} = excluded.${name}`)
    .join(', ')
  const conflict = upsert ? ` ON CONFLICT (id) DO UPDATE SET ${set}` : ''
  return `INSERT INTO ${collection} (${names.join(', ')}) VALUES ${rows.join(', ')}${conflict}`
}
