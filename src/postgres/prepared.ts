import type pg from 'pg'

/**
 * Statements a connection parses and plans once (docs/postgres.md, "The
 * round trips of a push"): planning each statement anew took PostgreSQL
 * more CPU than running it.
 *
 * A statement with values sent on its own goes as a named statement of the
 * extended protocol (`named`), which node-postgres prepares once per
 * connection. The statements of a unit's simple queries (several in one
 * round trip, their values as literals) are `PREPARE`d on the connection
 * by the first query that needs them (`PreparedOn`), then `EXECUTE`d.
 */

/** The SQL of each statement a simple query may `EXECUTE`, by name. */
const STATEMENTS = new Map<string, string>()

/**
 * Names `sql` (with `$n` placeholders, typed where PostgreSQL cannot tell the type from the statement) as `name`,
 * for `PreparedOn.execute`; the same name always names the same SQL.
 */
export function prepared(name: string, sql: string): string {
  const known = STATEMENTS.get(name)
  if (known !== undefined && known !== sql) throw new Error(`postgres: statement ${name} is prepared already`)
  STATEMENTS.set(name, sql)
  return name
}

/** The statements each pooled connection has prepared: a connection's statements die with it. */
const preparedOn = new WeakMap<pg.ClientBase, Set<string>>()

/**
 * What the simple queries of one connection `EXECUTE`, and the `PREPARE`s
 * the next query must begin with. A `PREPARE` that ran stays, whatever the
 * transaction does after it; one that may not have run (its query failed)
 * makes the connection unusable for them: `spoiled`, and released as broken.
 */
export class PreparedOn {
  readonly #done: Set<string>
  #pending: string[] = []
  /** A query that carried `PREPARE`s failed: which of them ran is not known. */
  spoiled = false

  constructor(client: pg.ClientBase) {
    let done = preparedOn.get(client)
    if (!done) preparedOn.set(client, (done = new Set()))
    this.#done = done
  }

  /** `EXECUTE name(…)`, the values as `literal` writes them; the next query prepares it first if need be. */
  execute(name: string, values: readonly unknown[], literal: (value: unknown) => string): string {
    if (!this.#done.has(name) && !this.#pending.includes(name)) this.#pending.push(name)
    return values.length === 0 ? `EXECUTE ${name}` : `EXECUTE ${name}(${values.map(literal).join(', ')})`
  }

  /** `sql`, after the `PREPARE`s it needs; `run` sends it. */
  async send<T>(sql: string, run: (sql: string) => Promise<T>): Promise<T> {
    const names = this.#pending
    if (names.length === 0) return run(sql)
    this.#pending = []
    const prepares = names.map((name) => `PREPARE ${name} AS ${STATEMENTS.get(name)!}`)
    try {
      const result = await run(`${prepares.join(';\n')};\n${sql}`)
      for (const name of names) this.#done.add(name)
      return result
    } catch (error) {
      this.spoiled = true
      throw error
    }
  }
}

/** Names of the statements a unit's first query `EXECUTE`s, by their text (`openingName`). */
const openings = new Map<string, string>()

/**
 * The name `text` is `PREPARE`d under where it opens a unit (`UnitSql`): its values then go as literals to an
 * `EXECUTE`, in the simple query that begins the transaction. Undefined past `NAMED_MOST` texts: the rest go
 * inline. Prepared, a unit's opening read is parsed once per connection; one given an array of ids is still
 * planned at each call (docs/postgres.md, "Prepared statements").
 */
export function openingName(text: string): string | undefined {
  let name = openings.get(text)
  if (name === undefined && openings.size < NAMED_MOST)
    openings.set(text, (name = prepared(`tpo_${openings.size}`, text)))
  return name
}

/** Names of the statements sent as named statements, by their text. */
const names = new Map<string, string>()
/** Distinct texts named at most: a list's filters make a few dozen; past this, the rest go unnamed. */
const NAMED_MOST = 500

/**
 * `text` with `values` as a query config that node-postgres prepares once per connection; without values, as
 * it is (it may be several statements, which only a simple query can send).
 */
export function named(text: string, values: unknown[] | undefined): pg.QueryConfig {
  if (values === undefined || values.length === 0) return {text}
  let name = names.get(text)
  if (name === undefined && names.size < NAMED_MOST) names.set(text, (name = `tpq_${names.size}`))
  return {text, values, ...(name === undefined ? {} : {name})}
}
