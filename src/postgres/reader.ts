import {constants} from 'node:buffer'
import type pg from 'pg'
import {STRING_TOO_LONG} from '../domain/json-memory.js'
import type {CheckRecord, CollectionName, Collections, WebhookEndpointRecord} from '../domain/records.js'
import type {SavedSnapshot} from '../domain/snapshots.js'
import type {Holder, PageOf, PageQuery, Reader, Where} from '../service/storage.js'
import {prepared} from './prepared.js'
import {COLUMNS} from './schema.js'
import {savedSnapshots} from './snapshots.js'
import {text, untext} from './text.js'

type Row = Record<string, unknown>

const FIELD = /^[a-z_]+$/

/**
 * A snapshot's text, made once for the row (`OFFSET 0`): each `doc::text` decompresses the whole document,
 * and measuring it apart from sending it took a restore of 1,000 checks 30–60 ms more (docs/postgres.md,
 * "Snapshots").
 */
const SNAPSHOT_TEXT = 'snapshots, LATERAL (SELECT snapshots.doc::text AS doc_text OFFSET 0) s'

/** A snapshot's text only when Node can read it back as one string, and whether it can. */
const READABLE_SNAPSHOT = `CASE WHEN octet_length(s.doc_text) <= ${constants.MAX_STRING_LENGTH} THEN s.doc_text END AS doc,
  octet_length(s.doc_text) <= ${constants.MAX_STRING_LENGTH} AS readable`

/**
 * Collections whose listed records a unit may write back: a fan-out draws
 * chaos on the endpoints it lists, retention deletes the deliveries it
 * lists. Their lists are locked FOR UPDATE from the start: two units that
 * both held a shared lock and then both wanted it alone would deadlock, over
 * and over under load (docs/postgres.md). They are locked in the order
 * `getMany` locks them in, whatever order they are listed in. An account's
 * endpoints listed whole are locked as `ENDPOINTS` locks them.
 */
const WRITTEN_BACK = new Set<CollectionName>(['webhook_endpoints', 'deliveries'])

/**
 * An account's endpoints, locked for a unit: those under chaos `FOR UPDATE`, since a fan-out writes their
 * draws back; the others `FOR SHARE`, since it does not: units that fan out to one account do not take
 * turns on them, and none changes while they do. Every unit locks them in this order, the calm ones then
 * those under chaos, each in the order of their ids (`LOCK_ORDER`): a record of attempts, which locks
 * some of them, deadlocked with a push that took them in another. An endpoint that
 * moved between calm and chaos while they were locked is in neither list: the count read in the same
 * statement tells (`lockedEndpoints`).
 */
const ENDPOINTS_SQL = `WITH calm AS (SELECT seq, doc FROM webhook_endpoints WHERE account_id = $1::text AND (doc->>'chaos') IS NULL ORDER BY id FOR SHARE),
     stirred AS (SELECT seq, doc FROM webhook_endpoints WHERE account_id = $1 AND (doc->>'chaos') IS NOT NULL ORDER BY id FOR UPDATE)
   SELECT json_agg(doc ORDER BY seq) AS docs, (SELECT count(*)::integer FROM webhook_endpoints WHERE account_id = $1) AS n
   FROM (SELECT * FROM calm UNION ALL SELECT * FROM stirred) locked`
export const ENDPOINTS = prepared('tp_endpoints', ENDPOINTS_SQL)

/** The order a unit locks records of a collection in, where it is not their ids': as `ENDPOINTS` locks them. */
const LOCK_ORDER: {readonly [C in CollectionName]?: string} = {webhook_endpoints: "(doc->>'chaos') IS NOT NULL, id"}

export interface LockedEndpoints {
  docs: WebhookEndpointRecord[] | null
  n: number
}

/** The endpoints `ENDPOINTS` read, oldest first; a serialization failure, which runs the unit again, if one was missed. */
export function lockedEndpoints(result: pg.QueryResult<LockedEndpoints>): WebhookEndpointRecord[] {
  const {docs, n} = result.rows[0]!
  const records = docs ?? []
  if (records.length !== n) throw Object.assign(new Error('postgres: endpoints changed while read'), {code: '40001'})
  return records
}

function matches(record: unknown, where: Row | undefined): boolean {
  if (where === undefined) return true
  for (const key in where) {
    const value = where[key]
    const field = (record as Row)[key]
    if (value !== undefined && (Array.isArray(value) ? !value.includes(field) : field !== value)) return false
  }
  return true
}

/** `AND …` for each field of `where` given, its values pushed onto `values`. */
function filters(collection: CollectionName, where: Row | undefined, values: unknown[]): string {
  let sql = ''
  for (const field in where) {
    const value = where[field]
    if (value === undefined) continue
    if (!FIELD.test(field)) throw new Error(`postgres: cannot filter on "${field}"`)
    if (COLUMNS[collection].includes(field)) {
      values.push(Array.isArray(value) ? value.map((one) => text(String(one))) : text(String(value)))
      sql += Array.isArray(value)
        ? ` AND ${field} = ANY($${values.length}::text[])`
        : ` AND ${field} = $${values.length}`
    } else if (Array.isArray(value)) {
      throw new Error(`postgres: a list of values filters only a column, not "${field}"`)
    } else if (typeof value === 'string') {
      values.push(value)
      sql += ` AND doc->>'${field}' = $${values.length}`
    } else {
      // the stored text is JSON.stringify's, so a number or boolean reads back as the same text
      values.push(JSON.stringify(value))
      sql += ` AND (doc->'${field}')::text = $${values.length}`
    }
  }
  return sql
}

/** What reads run their statements on: a unit's connection, or the pool. */
export interface Sql {
  query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>
}

const docs = <T>(result: pg.QueryResult<{doc: T}>): T[] => result.rows.map((row) => row.doc)

/**
 * `countPast`'s statement, of the account `$1` and `kept` `$2`. The places (seq) of an account's records are
 * distinct, so it has no more records than the span from its first place to its last: PostgreSQL reads those two
 * from the index, and counts (reading every record) only when the span is longer than `kept`. Below its bound, a
 * retention pass then reads two index entries where the count read up to 100,000 events, 10–280 ms of the
 * database's time each second (docs/postgres.md, "Retention at the bound").
 */
export const countPastSql = (collection: CollectionName) =>
  `SELECT CASE WHEN coalesce(max(seq) - min(seq) + 1, 0) <= $2 THEN 0
     ELSE greatest((SELECT count(*) FROM ${collection} WHERE account_id = $1) - $2, 0) END::integer AS n
   FROM ${collection} WHERE account_id = $1`

/**
 * The reads of the storage interface over one connection (a unit's) or the
 * pool (reads outside a unit). In a unit, a record read by its key is locked
 * (`FOR UPDATE`) and records listed are shared-locked (`FOR SHARE`; endpoints and
 * deliveries, which units write back, `FOR UPDATE`) until the
 * unit ends: no other unit can change what this one decides on.
 */
export class PgReader implements Reader {
  constructor(
    protected readonly sql: Sql,
    private readonly locked: boolean,
  ) {}

  /** The ids a unit looked up and found absent: writing one is an insert that fails if another unit made it first. */
  protected readonly absent = new Set<string>()

  async get<C extends CollectionName>(collection: C, id: string): Promise<Collections[C] | undefined> {
    if (collection === 'snapshots') return (await this.#snapshot(id)) as Collections[C] | undefined
    return (await this.#byId<{doc: Collections[C]}>('doc', collection, id))?.doc
  }

  /**
   * A snapshot, unless its text is past the longest string Node makes (an earlier version saved such): read,
   * it would end the process in node-postgres, so it is refused as Node refuses it (STRING_TOO_LONG).
   */
  async #snapshot(id: string): Promise<unknown> {
    const row = await this.#byId<{doc: string; readable: boolean}>(READABLE_SNAPSHOT, 'snapshots', id, SNAPSHOT_TEXT)
    if (row && !row.readable)
      throw Object.assign(new Error(`snapshot ${id} is longer than Node reads as one string`), {code: STRING_TOO_LONG})
    return row && JSON.parse(row.doc)
  }

  async has(collection: CollectionName, id: string): Promise<boolean> {
    return (await this.#byId('1', collection, id)) !== undefined
  }

  /** `what` of the record `id` (read `from` its table), locked in a unit; one found absent there is noted (`absent`). */
  async #byId<R extends pg.QueryResultRow>(
    what: string,
    collection: CollectionName,
    id: string,
    from: string = collection,
  ): Promise<R | undefined> {
    const lock = this.locked ? ` FOR UPDATE OF ${collection}` : ''
    const result = await this.sql.query<R>(`SELECT ${what} FROM ${from} WHERE id = $1${lock}`, [text(id)])
    if (result.rows.length === 0 && this.locked) this.absent.add(`${collection}\u0000${id}`)
    return result.rows[0]
  }

  async getMany<C extends CollectionName>(
    collection: C,
    ids: readonly string[],
  ): Promise<(Collections[C] | undefined)[]> {
    // none asked: no round trip
    if (ids.length === 0) return []
    if (ids.length === 1) return [await this.get(collection, ids[0]!)]
    // locked in one order: two units that lock some of the same never wait for each other in a circle
    const lock = this.locked ? ` ORDER BY ${LOCK_ORDER[collection] ?? 'id'} FOR UPDATE` : ''
    const result = await this.sql.query<{id: string; doc: Collections[C]}>(
      `SELECT id, doc FROM ${collection} WHERE id = ANY($1::text[])${lock}`,
      [ids.map(text)],
    )
    const found = new Map(result.rows.map((row) => [untext(row.id), row.doc]))
    return ids.map((id) => {
      const doc = found.get(id)
      if (doc === undefined && this.locked) this.absent.add(`${collection}\u0000${id}`)
      return doc
    })
  }

  async #check(where: string, values: unknown[]): Promise<CheckRecord | undefined> {
    const lock = this.locked ? ' FOR UPDATE' : ''
    const result = await this.sql.query<{doc: CheckRecord}>(`SELECT doc FROM checks WHERE ${where}${lock}`, values)
    return result.rows[0]?.doc
  }

  checkByExternalId(accountId: string, externalId: string): Promise<CheckRecord | undefined> {
    return this.#check('account_id = $1 AND external_id = $2', [text(accountId), text(externalId)])
  }

  checkByGuestToken(token: string): Promise<CheckRecord | undefined> {
    return this.#check('guest_token = $1', [text(token)])
  }

  async list<C extends CollectionName>(collection: C, accountId: string, where?: Where<C>): Promise<Collections[C][]> {
    if (this.locked && collection === 'webhook_endpoints' && where === undefined) {
      const result = await this.sql.query<LockedEndpoints>(ENDPOINTS_SQL, [text(accountId)])
      return lockedEndpoints(result) as Collections[C][]
    }
    const values: unknown[] = [text(accountId)]
    const filter = filters(collection, where as Row, values)
    const from = `FROM ${collection} WHERE account_id = $1${filter}`
    // those a unit writes back are locked in the order every unit locks them in (getMany), and listed oldest first
    const sql = !this.locked
      ? `SELECT doc ${from} ORDER BY seq`
      : WRITTEN_BACK.has(collection)
        ? `SELECT doc FROM (SELECT seq, doc ${from} ORDER BY ${LOCK_ORDER[collection] ?? 'id'} FOR UPDATE) locked ORDER BY seq`
        : `SELECT doc ${from} ORDER BY seq FOR SHARE`
    const result = await this.sql.query<{doc: Collections[C]}>(sql, values)
    return docs(result).filter((record) => matches(record, where as Row))
  }

  async page<C extends CollectionName>(
    collection: C,
    accountId: string,
    query: PageQuery<C>,
  ): Promise<PageOf<Collections[C]> | undefined> {
    const rows = await this.#pageRows<{doc: Collections[C]}>('doc', collection, accountId, query)
    return rows && {records: rows.records.map((row) => row.doc), hasMore: rows.hasMore}
  }

  async pageIds(
    collection: CollectionName,
    accountId: string,
    query: Omit<PageQuery<CollectionName>, 'where'>,
  ): Promise<PageOf<string> | undefined> {
    const rows = await this.#pageRows<{id: string}>('id', collection, accountId, query)
    return rows && {records: rows.records.map((row) => row.id), hasMore: rows.hasMore}
  }

  /** The rows of one page, with `column` of each: the records (`doc`) or their ids. */
  async #pageRows<R extends pg.QueryResultRow>(
    column: 'doc' | 'id',
    collection: CollectionName,
    accountId: string,
    {limit, startingAfter, where, oldestFirst = false}: PageQuery<CollectionName>,
  ): Promise<PageOf<R> | undefined> {
    const values: unknown[] = [text(accountId)]
    let after = ''
    if (startingAfter !== undefined) {
      // the cursor's place: its record's, or the place it had before it was deleted (by an instance that
      // kept no account, any account's)
      const place = await this.sql.query<{seq: string}>(
        `SELECT seq FROM ${collection} WHERE id = $1 AND account_id = $2
         UNION ALL SELECT seq FROM deleted WHERE collection = $3 AND id = $1 AND (account_id = $2 OR account_id IS NULL)
         LIMIT 1`,
        [text(startingAfter), text(accountId), collection],
      )
      if (place.rows.length === 0) return undefined
      values.push(place.rows[0]!.seq)
      after = ` AND seq ${oldestFirst ? '>' : '<'} $2`
    }
    const filter = filters(collection, where as Row, values)
    values.push(limit + 1)
    const result = await this.sql.query<R>(
      `SELECT ${column} FROM ${collection} WHERE account_id = $1${after}${filter}
       ORDER BY seq ${oldestFirst ? 'ASC' : 'DESC'} LIMIT $${values.length}`,
      values,
    )
    const hasMore = result.rows.length > limit
    return {records: hasMore ? result.rows.slice(0, limit) : result.rows, hasMore}
  }

  async all<C extends CollectionName>(collection: C, where?: Where<C>): Promise<Collections[C][]> {
    const values: unknown[] = []
    const filter = filters(collection, where as Row, values)
    const result = await this.sql.query<{doc: Collections[C]}>(
      `SELECT doc FROM ${collection} WHERE true${filter} ORDER BY seq`,
      values,
    )
    return docs(result).filter((record) => matches(record, where as Row))
  }

  async count(collection: CollectionName, accountId: string): Promise<number> {
    const result = await this.sql.query<{n: number}>(
      `SELECT count(*)::integer AS n FROM ${collection} WHERE account_id = $1`,
      [text(accountId)],
    )
    return result.rows[0]!.n
  }

  async countPast(collection: CollectionName, accountId: string, kept: number): Promise<number> {
    const result = await this.sql.query<{n: number}>(countPastSql(collection), [text(accountId), kept])
    return result.rows[0]!.n
  }

  snapshots(accountId: string): Promise<SavedSnapshot[]> {
    return savedSnapshots(this.sql, accountId)
  }

  /**
   * Not locked: the rows are another account's, which this unit does not change (a restore refuses them). In a
   * unit, an id no account holds is noted absent (`absent`): a restore inserts it instead of upserting it, and
   * an `ON CONFLICT` cost PostgreSQL about 15 % of each insert (docs/postgres.md, "Snapshots").
   */
  async heldElsewhere(collection: CollectionName, ids: readonly string[], accountId: string): Promise<Holder[]> {
    if (ids.length === 0) return []
    const result = await this.sql.query<Holder>(`SELECT id, account_id FROM ${collection} WHERE id = ANY($1::text[])`, [
      ids.map(text),
    ])
    const holders = result.rows.map((row) => ({id: untext(row.id), account_id: untext(row.account_id)}))
    if (this.locked) {
      const held = new Set(holders.map(({id}) => id))
      for (const id of ids) if (!held.has(id)) this.absent.add(`${collection}\u0000${id}`)
    }
    return holders.filter((holder) => holder.account_id !== accountId)
  }

  async guestTokensElsewhere(tokens: readonly string[], accountId: string): Promise<Holder[]> {
    if (tokens.length === 0) return []
    const result = await this.sql.query<{guest_token: string; account_id: string}>(
      'SELECT guest_token, account_id FROM checks WHERE guest_token = ANY($1::text[]) AND account_id <> $2::text',
      [tokens.map(text), text(accountId)],
    )
    return result.rows.map((row) => ({id: untext(row.guest_token), account_id: untext(row.account_id)}))
  }
}
