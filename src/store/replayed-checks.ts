import {decodeCopy} from './journal-copies.js'
import type {PushLine} from './journal-pushes.js'
import type {Fields} from './json-values.js'

/** A push's line whose check waits for the end of the replay, and where it was read. */
interface Held {
  push: PushLine
  file: string
  line: number
}

/**
 * The checks of the push lines a start replays, held as their lines until
 * the whole journal is read: a check changes many times in one journal,
 * and only its last version is built, from its event's data
 * (journal-pushes.ts).
 *
 * @example
 * checks.hold(push, file, line) // for each push line of a check the documents have
 * for (const {id, record} of checks.built()) table.put(record)
 */
export class ReplayedChecks {
  readonly #latest = new Map<string, Held>()

  /** Holds the line's check as the latest version of it. */
  hold(push: PushLine, file: string, line: number): void {
    this.#latest.set(push.check[1], {push, file, line})
  }

  /** A later change of the check in the journal (a whole record, or its deletion) replaces what is held. */
  replaced(id: string): void {
    this.#latest.delete(id)
  }

  /** Each check held, built; its record is undefined when its copy does not fit its event (damage). */
  *built(): Generator<{id: string; record: Fields | undefined; file: string; line: number}> {
    for (const [id, {push, file, line}] of this.#latest) yield {id, record: buildCheck(push), file, line}
    this.#latest.clear()
  }
}

/** The check a push's line holds, built from its event's data; undefined when its copy does not fit that event. */
export function buildCheck({check, event}: PushLine): Fields | undefined {
  return decodeCopy(check, [check, ['events', event.id, event.read()]])
}
