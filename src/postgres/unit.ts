import type pg from 'pg'
import type {CollectionName, Collections} from '../domain/records.js'
import type {Change, UnitOfWork} from '../service/storage.js'
import {UnitWrites} from '../service/unit-writes.js'
import {PgReader, text, untext} from './reader.js'
import {COLUMNS} from './schema.js'

type Row = Record<string, unknown>

/** One unit of work: one transaction; its writes are collected and applied together when it ends. */
export class PgUnit extends PgReader implements UnitOfWork {
  readonly #writes = new UnitWrites()

  constructor(client: pg.PoolClient) {
    super(client, true)
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

  /** Writes `changes` in this unit's transaction, each collection's in one statement. */
  async apply(changes: readonly Change[]): Promise<void> {
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
    for (const [collection, {deletes, inserts, upserts}] of byCollection) {
      if (deletes.length > 0) await this.#delete(collection, deletes)
      if (inserts.length > 0) await this.#insert(collection, inserts, false)
      if (upserts.length > 0) await this.#insert(collection, upserts, true)
    }
  }

  async #delete(collection: CollectionName, ids: string[]): Promise<void> {
    await this.sql.query(
      `WITH gone AS (DELETE FROM ${collection} WHERE id = ANY($1::text[]) RETURNING id, seq)
       INSERT INTO deleted (collection, id, seq) SELECT $2, id, seq FROM gone
       ON CONFLICT (collection, id) DO UPDATE SET seq = excluded.seq`,
      [ids.map(text), collection],
    )
  }

  /**
   * One statement for all the puts of a collection, in their order (a new
   * record's place follows it). A record the unit found absent is inserted
   * plainly: if another unit made it meanwhile, the unique key refuses it and
   * the unit runs again, seeing it (an `Idempotency-Key` sent twice at once).
   */
  async #insert(collection: CollectionName, changes: Change[], upsert: boolean): Promise<void> {
    const columns = COLUMNS[collection]
    const arrays: unknown[][] = [[], [], [], ...columns.map(() => [])]
    for (const [, id, record] of changes) {
      const row = record as Row
      arrays[0]!.push(text(id))
      arrays[1]!.push(text(row.account_id as string))
      arrays[2]!.push(JSON.stringify(row))
      columns.forEach((column, i) => {
        const value = row[column]
        arrays[3 + i]!.push(value === undefined || value === null ? null : text(String(value)))
      })
    }
    const names = ['id', 'account_id', 'doc', ...columns]
    const types = ['text', 'text', 'json', ...columns.map(() => 'text')]
    const set = names
      .slice(1)
      .map((name) => `${name} = excluded.${name}`)
      .join(', ')
    await this.sql.query(
      `INSERT INTO ${collection} (${names.join(', ')})
       SELECT * FROM unnest(${types.map((type, i) => `$${i + 1}::${type}[]`).join(', ')})
       ${upsert ? `ON CONFLICT (id) DO UPDATE SET ${set}` : ''}`,
      arrays,
    )
  }
}
