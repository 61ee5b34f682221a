import type pg from 'pg'
import {inline, literal} from './literal.js'
import {named, openingName, PreparedOn} from './prepared.js'
import type {Sql} from './reader.js'

/** How long a unit waits for a lock, in seconds, before it runs again (storage.ts). */
export const LOCK_TIMEOUT_S = 5

/**
 * How long, in seconds, a request waits for locks in all before it answers 503: a row held longer is held by a
 * transaction left open (an instance paused mid-unit, a session of the user's own), which no wait settles, and
 * 20 s is within a client's usual 30 s.
 */
export const LOCKS_GIVE_UP_S = 20

/**
 * How each unit's transaction begins. A lock waited for longer than its
 * lock_timeout fails with 55P03 and the unit runs again: a backstop against
 * a convoy of units on one row that would otherwise hold requests for long.
 */
const BEGIN = `BEGIN; SET LOCAL lock_timeout = '${LOCK_TIMEOUT_S}s'`

/**
 * A unit's connection. The transaction begins with the unit's first
 * statement, in the same simple query, so `BEGIN` costs no round trip of its
 * own (docs/postgres.md, "The round trips of a push"); its values are sent
 * as literals then, as the notification always was.
 */
export class UnitSql implements Sql {
  begun = false
  /** What the transaction's first query runs right after BEGIN: the account's shared lock (`writesTo`), a kept check's lock. */
  lead = ''
  /** A read put off until the unit sends anything (`PgUnit.checkByExternalId`): it goes first, alone. */
  before: (() => Promise<unknown>) | undefined
  readonly prepared: PreparedOn

  constructor(readonly client: pg.PoolClient) {
    this.prepared = new PreparedOn(client)
  }

  query<R extends pg.QueryResultRow>(sql: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    if (this.begun) return this.client.query<R>(named(sql, values))
    if (values === undefined || values.length === 0) return this.#together<R>(sql)
    const name = openingName(sql)
    return this.#together<R>(name === undefined ? inline(sql, values) : this.execute(name, values))
  }

  /** The statements asked for in one turn before the transaction began (`#together`), and their callers. */
  #asked: {sql: string; answer: (result: Promise<pg.QueryResult>) => void}[] | undefined

  /**
   * Sends the unit's first statement with those asked for in the same turn, all in the query that begins
   * the transaction: reads a unit starts together cost one round trip (docs/postgres.md, "The round trips of a
   * push"). Each statement is one (a read): its result is its own.
   */
  #together<R extends pg.QueryResultRow>(sql: string): Promise<pg.QueryResult<R>> {
    if (this.#asked === undefined) {
      this.#asked = []
      queueMicrotask(() => this.#sendAsked())
    }
    const asked = this.#asked
    return new Promise((answer) => asked.push({sql, answer: answer as (result: Promise<pg.QueryResult>) => void}))
  }

  #sendAsked(): void {
    const asked = this.#asked!
    this.#asked = undefined
    const sent = this.results(asked.map(({sql}) => sql).join('; '))
    asked.forEach(({answer}, i) => answer(sent.then((results) => results.at(i - asked.length)!)))
  }

  /** Begins the transaction, if no statement has yet. */
  async begin(): Promise<void> {
    if (!this.begun) await this.results('SELECT 1')
  }

  /** `EXECUTE` of the prepared statement `name` with `values`, to send in a simple query (`results`). */
  execute(name: string, values: readonly unknown[]): string {
    return this.prepared.execute(name, values, literal)
  }

  /** Sends the read put off (`before`), if any. */
  async settle(): Promise<void> {
    const before = this.before
    this.before = undefined
    await before?.()
  }

  /** The same, resolving with the result of each of its statements. */
  async results<R extends pg.QueryResultRow>(sql: string): Promise<pg.QueryResult<R>[]> {
    await this.settle()
    const text = this.begun ? sql : `${BEGIN}; ${this.lead}${sql}`
    this.begun = true
    const results = await this.prepared.send(
      text,
      (text) => this.client.query(text) as unknown as Promise<pg.QueryResult<R> | pg.QueryResult<R>[]>,
    )
    return Array.isArray(results) ? results : [results]
  }
}
