import {decodeCopy, encodeCopies, isCopy} from './journal-copies.js'
import {decodeRun, encodeRuns, isRun} from './journal-runs.js'

/**
 * The changes of a journal line as it writes them: each a put (or delete)
 * `[collection, id, record]`, or one of two short forms that replay into the
 * same records (docs/storage.md "Files"): a run of alike records
 * (journal-runs.ts), and a record that repeats another's `data`
 * (journal-copies.ts).
 */

/** One change as the journal holds it: a record put (or deleted, with `null`) under an id. */
export type JournalChange = [collection: string, id: string, record: unknown]

/** The items of a line for `changes`: runs first, then copies of what the runs left as they were. */
export function encodeChanges(changes: readonly JournalChange[]): readonly unknown[] {
  return encodeCopies(encodeRuns(changes))
}

const isChange = (c: unknown): c is JournalChange =>
  Array.isArray(c) && c.length === 3 && typeof c[0] === 'string' && typeof c[1] === 'string' && typeof c[2] === 'object'

/**
 * The changes a journal line holds, short forms expanded into the records
 * they were written from (same fields, same order), or `undefined` when an
 * item is none of the three.
 */
export function decodeChanges(items: unknown): JournalChange[] | undefined {
  if (!Array.isArray(items)) return undefined
  if (items.every(isChange)) return items
  const changes: JournalChange[] = []
  for (const item of items) {
    if (isChange(item)) {
      changes.push(item)
    } else if (isRun(item)) {
      changes.push(...decodeRun(item))
    } else if (isCopy(item)) {
      const record = decodeCopy(item, items)
      if (!record) return undefined
      changes.push([item[0], item[1], record])
    } else {
      return undefined
    }
  }
  return changes
}
