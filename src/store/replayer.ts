import type {Damage} from './damage.js'
import {isCopyBody} from './journal-copies.js'
import type {Frame} from './journal-frames.js'
import {decodeRun, isRun} from './journal-runs.js'
import {type Fields, isFields} from './json-values.js'
import {buildCheck, type PushedCheck, type ReplayedChecks} from './replayed-checks.js'
import type {Table} from './table.js'
import {Unread} from './unread.js'

/** A record the journal puts (or deletes, `null`), as a table takes it: parsed, or unread in a table `readOnDemand`. */
type Put = [collection: string, id: string, record: Fields | Unread | null]

/** What one entry replays into: puts, and a push's check, which waits (replayed-checks.ts). */
type Step = Put | PushedCheck

/** What the replay writes to: the store's tables, and its `apply`, which also notes what a compaction must rewrite. */
export interface ReplayTarget {
  tables: Readonly<Record<string, Table<never>>>
  apply(collection: string, id: string, record: Fields | Unread | null): void
}

/** A record put's body as its table keeps it: unread when the table reads on demand (unread.ts), else parsed. */
function recordOf(table: Table<never>, frame: Frame): Fields | Unread | undefined {
  if (table.readOnDemand) {
    const unread = Unread.of(frame.body, table.unreadFields)
    if (unread?.id === frame.id) return unread
  }
  const record = parse(frame.body)
  return isFields(record) ? record : undefined
}

function parse(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString())
  } catch {
    return undefined
  }
}

/**
 * Replays the journal into the tables, an entry at a time, with a method
 * per kind of entry (journal-frames.ts). An entry changes a collection only
 * when its seq is after the one its document was written at. A push's check
 * waits until the whole journal is read, so that only its last version is
 * built (replayed-checks.ts, docs/storage.md "Read on demand"). A line any
 * of whose entries does not read is damage, and none of it is replayed.
 *
 * @example
 * const replayer = new Replayer(target, damage, docSeqs, checks)
 * replayer.line(seq, frames, file, number) // for each line of the journal
 * replayer.finish()
 */
export class Replayer {
  #file = ''
  #line = 0
  #frames: readonly Frame[] = []
  /** The records of the line's puts, read once (null: not yet): a copy reads its source's. */
  #records: (Fields | Unread | undefined | null)[] = []

  constructor(
    readonly target: ReplayTarget,
    readonly damage: Damage,
    readonly docSeqs: ReadonlyMap<string, number>,
    readonly checks: ReplayedChecks,
  ) {}

  /** Replays one line's entries, those after their collection's document. */
  line(seq: number, frames: readonly Frame[], file: string, line: number): void {
    this.#file = file
    this.#line = line
    this.#frames = frames
    this.#records = frames.map(() => null)
    const steps: Step[] = []
    for (let i = 0; i < frames.length; i++) {
      const frame = frames[i]!
      if (!Object.hasOwn(this.target.tables, frame.collection)) {
        this.damage.found(file, `is corrupt: it changes an unknown collection "${frame.collection}"`, line)
        continue
      }
      if (seq <= (this.docSeqs.get(frame.collection) ?? 0)) continue
      const replayed = this[frame.kind](frame, i)
      if (!replayed) return this.#corrupt()
      for (let j = 0; j < replayed.length; j++) steps.push(replayed[j]!)
    }
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i]!
      if (Array.isArray(step)) this.#put(step)
      else this.#pushed(step)
    }
  }

  /** A record put whole. */
  put(frame: Frame, index: number): Step[] | undefined {
    const record = this.#record(index)
    return record && [[frame.collection, frame.id, record]]
  }

  del(frame: Frame): Step[] {
    return [[frame.collection, frame.id, null]]
  }

  /** A run of alike records (journal-runs.ts). */
  run(frame: Frame): Step[] | undefined {
    const body = parse(frame.body)
    const run = Array.isArray(body) ? [frame.collection, ...(body as unknown[])] : undefined
    return isRun(run) ? (decodeRun(run) as Put[]) : undefined
  }

  /** A record that repeats another put's `data` (journal-copies.ts): a push's check waits, any other is built now. */
  copy(frame: Frame, index: number): Step[] | undefined {
    const body = parse(frame.body)
    if (!isCopyBody(body) || body[0] === index || this.#frames[body[0]]?.kind !== 'put') return undefined
    const [source, fields] = body
    const event = this.#record(source)
    if (!event) return undefined
    if (frame.collection === 'checks' && this.#frames[source]!.collection === 'events') {
      return [{id: frame.id, fields, event}]
    }
    const record = buildCheck({id: frame.id, fields, event})
    return record && [[frame.collection, frame.id, record]]
  }

  /** Stores the checks that wait, once the whole journal is read. */
  finish(): void {
    for (const {id, record, fromJournal, file, line} of this.checks.settle()) {
      if (fromJournal) this.#check(id, record, file, line)
      else if (record) this.target.tables.checks!.put(record as never)
      else this.damage.found(file, 'is corrupt: a record does not read', line)
    }
  }

  #record(index: number): Fields | Unread | undefined {
    let record = this.#records[index]
    if (record === null) {
      const frame = this.#frames[index]!
      const table = Object.hasOwn(this.target.tables, frame.collection) && this.target.tables[frame.collection]
      this.#records[index] = record = table ? recordOf(table, frame) : undefined
    }
    return record
  }

  #put([collection, id, record]: Put): void {
    if (collection === 'checks') {
      // a check changed whole: the table must hold every check before it, in order
      if (this.checks.deferring) this.finish()
      this.checks.replaced(id)
    }
    this.target.apply(collection, id, record)
  }

  /** A check new to the table takes its place in its account now; a later version waits. */
  #pushed(check: PushedCheck): void {
    if (this.checks.deferring) {
      if (!this.checks.holdDeferred(check, this.#file, this.#line)) this.#corrupt()
    } else if (this.target.tables.checks!.get(check.id)) {
      this.checks.hold(check, this.#file, this.#line)
    } else {
      this.#check(check.id, buildCheck(check), this.#file, this.#line)
    }
  }

  #check(id: string, record: Fields | undefined, file: string, line: number): void {
    if (record) this.target.apply('checks', id, record)
    else this.damage.found(file, 'is corrupt: it is not a journal entry', line)
  }

  #corrupt(): void {
    this.damage.found(this.#file, 'is corrupt: it is not a journal entry', this.#line)
  }
}
