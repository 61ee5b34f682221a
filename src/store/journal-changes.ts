import {encodeCopies} from './journal-copies.js'
import type {FrameText} from './journal-frames.js'
import {encodeRuns} from './journal-runs.js'
import {recordJson} from './json-text.js'

/**
 * The entries a journal line writes for its changes: each a put (or delete)
 * of a record, or one of two short forms that replay into the same records
 * (docs/storage.md "Files"): a run of alike records (journal-runs.ts), and
 * a record that repeats another's `data` (journal-copies.ts).
 */

/**
 * One change as the journal holds it: a record put (or deleted, with `null`) under an id. A deletion's owner
 * is not written: it is for the live streams, and a replay feeds none.
 */
export type JournalChange = [collection: string, id: string, record: unknown, owner?: string]

/**
 * The frames of a line for `changes`: runs first, then copies of what the
 * runs left as they were. A put's body is its record's JSON with an
 * event's resource spliced in (json-text.ts), which the push's answer then
 * reuses.
 *
 * @example
 * encodeChanges([['checks', 'chk_1', null]]) // [{kind: 'del', collection: 'checks', id: 'chk_1', body: ''}]
 */
export function encodeChanges(changes: readonly JournalChange[]): FrameText[] {
  return encodeCopies(encodeRuns(changes)).map((item) => {
    const [collection, second, third, fourth] = item as [string, unknown, unknown, unknown]
    // a copy's third is a number, a run's an array: a null one is a deletion, with or without its owner
    if ((item as unknown[]).length === 3 || third === null) {
      const id = second as string
      if (third === null) return {kind: 'del', collection, id, body: ''}
      return {kind: 'put', collection, id, body: recordJson(third as object), record: third as object}
    }
    // a copy names its record's id where a run has its template
    if (typeof second === 'string') return {kind: 'copy', collection, id: second, body: JSON.stringify([third, fourth])}
    return {kind: 'run', collection, id: '', body: JSON.stringify([second, third, fourth])}
  })
}
