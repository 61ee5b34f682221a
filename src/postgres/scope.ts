import {createHash} from 'node:crypto'
import type pg from 'pg'

/**
 * What keeps one sandbox's instances to themselves: the channels they notify
 * each other on, and the first key of their life locks (`instance.ts`).
 * Notifications and advisory locks belong to the whole database, while a
 * sandbox's tables are those of its schema: sandboxes in two schemas of one
 * database (`?options=-c search_path=…`) hear only their own
 * (docs/postgres.md, "Flags").
 */
export interface Scope {
  /** The channel of the units' notices (`notice.ts`). */
  changes: string
  /** The channel of the instances' notes besides changes (`instance.ts`). */
  notes: string
  /** The first key of its instances' life locks. */
  lifeLock: number
  /** The schema its tables are in: with the database, the sandbox (the registry tells instances of one apart). */
  schema: string
}

/** The first key of the life locks in `public`, which an instance of an earlier version takes in every schema. */
const PUBLIC_LIFE_LOCK = 0x7470

/**
 * The scope of the sandbox in `schema` (`current_schema()`). `public`'s
 * keeps the names every earlier version used, so that instances of both
 * share one sandbox there; another's end in a hash of its name, since a
 * channel's name holds 63 bytes and a schema's as many.
 *
 * @example
 * scopeOf('team_a') // {changes: 'tablepay_changes_…', notes: 'tablepay_notes_…', lifeLock: …}
 */
export function scopeOf(schema: string): Scope {
  if (schema === 'public')
    return {changes: 'tablepay_changes', notes: 'tablepay_notes', lifeLock: PUBLIC_LIFE_LOCK, schema}
  const hash = createHash('sha256').update(schema).digest()
  const suffix = hash.subarray(0, 8).toString('hex')
  // a positive int4: pg_locks shows the key as an oid, which a negative one would not equal
  const lifeLock = hash.readUInt32BE(8) & 0x7fffffff
  return {
    changes: `tablepay_changes_${suffix}`,
    notes: `tablepay_notes_${suffix}`,
    lifeLock: lifeLock === PUBLIC_LIFE_LOCK ? lifeLock + 1 : lifeLock,
    schema,
  }
}

/**
 * The scope of the sandbox `session`'s tables are in. With no schema of its search path there (none when the
 * path names none that exists, which the migration then refuses), `public`'s.
 */
export async function scopeOfSession(session: pg.Client): Promise<Scope> {
  const {rows} = await session.query<{schema: string | null}>('SELECT current_schema() AS schema')
  return scopeOf(rows[0]?.schema ?? 'public')
}
