// Values written into SQL text: what a unit's simple queries carry (src/postgres/unit.ts).

/**
 * Text as an SQL literal, as `pg.escapeLiteral` writes it (quotes doubled; with a backslash, ` E'…'` and
 * backslashes doubled), by native replaces: its loop of one concatenation per character made a push's
 * record into thousands of strings for the garbage collector (docs/postgres.md, "Speed").
 */
function escapeLiteral(value: string): string {
  const quoted = value.includes("'") ? value.replaceAll("'", "''") : value
  return value.includes('\\') ? ` E'${quoted.replaceAll('\\', '\\\\')}'` : `'${quoted}'`
}

/**
 * A value as an SQL literal: text, a number, NULL, or an array of them (`$1::text[]` becomes `ARRAY[…]::text[]`).
 * An empty array is `'{}'`, which takes the type it is given: `ARRAY[]` has none, and an `EXECUTE` of it fails.
 */
export function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL'
  if (typeof value === 'string') return escapeLiteral(value)
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  if (Array.isArray(value)) return value.length === 0 ? "'{}'" : `ARRAY[${value.map(literal).join(', ')}]`
  throw new Error(`postgres: no literal for ${typeof value}`)
}

/** `sql` with its `$n` placeholders replaced by `values` as literals, to send as (part of) a simple query. */
export function inline(sql: string, values: readonly unknown[] = []): string {
  return sql.replace(/\$(\d+)/g, (_, n: string) => literal(values[Number(n) - 1]))
}
