import type {CheckRecord} from '../domain/records.js'

/**
 * The text of a push that left a check version as it was, by that
 * version's record, which never changes in place. A POS that re-sends a
 * check's state unchanged sends the same text again, and the same text
 * against the same record decides `unchanged` again: nothing else a push
 * reads can change under a record without replacing it (locations are
 * never deleted). Such a push is answered without parsing its body
 * (docs/benchmarks.md, "Replays"). Only replays are kept, not every
 * changing push: most versions are replaced before anyone re-sends them,
 * and keeping each would cost every push. PostgreSQL reads a new object
 * each time, except while an instance is alone and keeps the checks it read
 * (src/postgres/check-cache.ts): otherwise it never matches, and parses.
 */
const replays = new WeakMap<CheckRecord, string>()

/**
 * The kept text, when `text` repeats the push that last left `check`
 * unchanged: the same characters, in a string that has lived long already.
 * The request log keeps that one instead of the copy that arrived, which
 * then dies young and is never promoted (docs/benchmarks.md, "What a
 * replay keeps").
 */
export function keptReplay(check: CheckRecord | undefined, text: string): string | undefined {
  const kept = check && replays.get(check)
  return kept === text ? kept : undefined
}

/** Keeps `text` as the push that left `check` unchanged. */
export function rememberReplay(check: CheckRecord, text: string): void {
  replays.set(check, text)
}
