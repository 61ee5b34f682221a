import {join} from 'node:path'
import {Damage} from './damage.js'
import type {Documents} from './documents.js'
import {type Copy, decodeCopy} from './journal-copies.js'
import {type Fields, isFields} from './json-values.js'
import {leadingId} from './bytes.js'
import {Unread} from './unread.js'

/** A push's check as its line holds it: a copy of its event's data (journal-copies.ts), the event still unread. */
export interface PushedCheck {
  id: string
  fields: Copy[3]
  event: Unread | Fields
}

/** A push's check that waits for the end of the replay, and where it was read. */
interface Held {
  push: PushedCheck
  file: string
  line: number
}

/** A record of the checks document as its bytes, and the id they begin with. */
interface Documented {
  id: string
  bytes: Buffer
  /** Its place in the document, for damage: the records begin on line 4. */
  line: number
}

/** A check to store, in order: one of the document's (`line` in `file`) or one a push's line built (`fromJournal`). */
export interface Settled {
  id: string
  record: Fields | undefined
  fromJournal: boolean
  file: string
  line: number
}

/** The line of a document's first record: after `{`, `"seq"` and `"records": [`. */
const FIRST_RECORD_LINE = 4

/** The id a record's bytes begin with, when it is a plain string. */
function idOf(bytes: Buffer): string | undefined {
  const id = leadingId(bytes)
  return id && bytes.toString('utf8', id.from, id.to)
}

/**
 * The checks a start reads, held until the journal is replayed: a check
 * changes many times in one journal, and only its last version is built,
 * from its event's data (replayer.ts). A check the journal changes
 * by a push's line is not parsed from the document either: until the
 * journal changes a check otherwise (a whole record, a deletion) the
 * document's checks stay as their bytes (`defer`), and every push's check
 * is held, so that each check is parsed or built once, in the order the
 * table would have stored them (docs/storage.md, "Read on demand"). The
 * soak's killed data dir changes all 10,000 checks: restarts of it went
 * from a median of 1,838 ms to 1,592 ms (docs/benchmarks.md, "Read on
 * demand").
 *
 * @example
 * checks.defer(records, path) // the checks document's records, as bytes
 * checks.hold(push, file, line) // for each push line
 * for (const {id, record} of checks.settle()) table.put(record)
 */
export class ReplayedChecks {
  readonly #latest = new Map<string, Held>()
  /** The document's checks, in order, while they wait (`defer`), and their ids. */
  #documented: Documented[] = []
  #documentedIds = new Set<string>()
  /**
   * The first version of each check the journal created while checks wait,
   * built from its first line as the table would have stored it: a later
   * line that does not build falls back to it, as to a document's version.
   */
  #first = new Map<string, {push: PushedCheck; record: Fields}>()
  #path = ''

  /** Whether checks wait for `settle`: then the table holds none yet, and every push's check is held. */
  get deferring(): boolean {
    return this.#documented.length > 0
  }

  /**
   * The checks document's records as their bytes (a whole document, its
   * bytes vouched for by its trailer), to be parsed at `settle` unless a
   * push's line replaces them; false, keeping none, when one does not begin
   * with a plain id, and the caller stores them parsed.
   */
  defer(records: readonly Buffer[], path: string): boolean {
    const documented: Documented[] = []
    for (const [index, bytes] of records.entries()) {
      const id = idOf(bytes)
      if (id === undefined) return false
      documented.push({id, bytes, line: FIRST_RECORD_LINE + index})
    }
    this.#documented = documented
    this.#documentedIds = new Set(documented.map((d) => d.id))
    this.#path = path
    return true
  }

  /**
   * Holds the line's check while checks wait (`deferring`). A check new to
   * the replay is built from its first line at once, as it would be stored
   * then; false when that line does not build (damage), and nothing is held.
   */
  holdDeferred(push: PushedCheck, file: string, line: number): boolean {
    const id = push.id
    if (!this.#documentedIds.has(id) && !this.#first.has(id)) {
      const record = buildCheck(push)
      if (!record) return false
      this.#first.set(id, {push, record})
    }
    this.hold(push, file, line)
    return true
  }

  /** Holds the line's check as the latest version of it. */
  hold(push: PushedCheck, file: string, line: number): void {
    this.#latest.set(push.id, {push, file, line})
  }

  /** A later change of the check in the journal (a whole record, or its deletion) replaces what is held. */
  replaced(id: string): void {
    this.#latest.delete(id)
  }

  /**
   * The checks to store now, in order: the document's that waited, each
   * built from its last push's line or parsed, then each held check, built.
   * A record is undefined when its line does not read (damage); the version
   * before it follows then (the document's, or a new check's first line's),
   * as the table held it before that line.
   */
  *settle(): Generator<Settled> {
    const documented = this.#documented
    const first = this.#first
    this.#documented = []
    this.#documentedIds = new Set()
    this.#first = new Map()
    for (const {id, bytes, line} of documented) {
      const held = this.#latest.get(id)
      const record = held && buildCheck(held.push)
      if (held) {
        this.#latest.delete(id)
        yield {id, record, fromJournal: true, file: held.file, line: held.line}
      }
      if (!record) yield {id, record: parseRecord(bytes), fromJournal: false, file: this.#path, line}
    }
    for (const [id, {push, file, line}] of this.#latest) {
      const before = first.get(id)
      const record = before?.push === push ? before.record : buildCheck(push)
      yield {id, record, fromJournal: true, file, line}
      if (!record && before) yield {id, record: before.record, fromJournal: true, file, line}
    }
    this.#latest.clear()
  }
}

function parseRecord(bytes: Buffer): Fields | undefined {
  try {
    const record: unknown = JSON.parse(bytes.toString())
    return isFields(record) ? record : undefined
  } catch {
    return undefined
  }
}

/** The check a push's line holds (or any copy), built from its event's data; undefined when its copy does not fit that event. */
export function buildCheck({fields, event}: PushedCheck): Fields | undefined {
  const record = event instanceof Unread ? (event.read() as Fields) : event
  return isFields(record.data) ? decodeCopy(fields, record.data) : undefined
}

/**
 * Reads the checks document for `checks` to defer, when it is whole; else
 * as any document, parsed, its damage reported. Returns the document with
 * its records parsed, or none when they wait in `checks`.
 */
export async function readChecks(documents: Documents, damage: Damage, checks: ReplayedChecks) {
  const found = new Damage(damage.dir, true)
  const doc = await documents.read<Buffer>('checks', found, 'bytes')
  const path = join(documents.dir, 'checks.json')
  if (doc.state === 'current' && found.dropped.length === 0 && checks.defer(doc.records, path)) {
    return {...doc, records: []}
  }
  return documents.read<Fields>('checks', damage)
}
