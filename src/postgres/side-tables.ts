import type {Sql} from './reader.js'

/**
 * Deletes, of the places of deleted records, all but the newest `kept` of each collection (docs/api.md,
 * "Lists"), then the changes passed on through the `changes` table over 5 minutes ago, which every instance
 * listening has read by then (src/postgres/notice.ts).
 *
 * @example
 * await trimSideTables(sql, 10_000)
 */
export async function trimSideTables(sql: Sql, kept: number): Promise<void> {
  await sql.query(
    `DELETE FROM deleted d USING (
       SELECT collection, seq FROM (
         SELECT collection, seq, row_number() OVER (PARTITION BY collection ORDER BY seq DESC) AS n FROM deleted
       ) ranked WHERE n = $1
     ) cut WHERE d.collection = cut.collection AND d.seq < cut.seq`,
    [kept],
  )
  await sql.query(`DELETE FROM changes WHERE at < now() - interval '5 minutes'`)
}
