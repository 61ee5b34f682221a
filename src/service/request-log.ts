import {
  renderedBytes,
  renderRequest,
  REQUEST_LOG_BYTES,
  type RequestEntry,
  type RequestFilters,
  requestMatches,
  type RequestTrace,
  traceBytes,
} from '../domain/request-log.js'

export type {RequestTrace}

/**
 * What a push notes in the trace of its request: the check it acted on and,
 * when it changed it, both versions; for a replay, its text as the service
 * already keeps it (service/push-replays.ts).
 */
export type PushNotes = Pick<RequestTrace, 'check_id' | 'push_result' | 'previous' | 'next'> & {request_text?: string}

export interface RequestPage {
  object: 'list'
  data: RequestEntry[]
  has_more: boolean
  next_cursor: string | null
}

/** One entry as the log holds it: the trace and what it costs, until it is dropped. */
interface Kept {
  /** Undefined once dropped: the node may stay a while in the queues, what it held does not. */
  trace: RequestTrace | undefined
  accountId: string
  /** Approximate bytes: the trace's, then its rendered entry's too once read. */
  bytes: number
  rendered: RequestEntry | undefined
}

/**
 * A cursor of the form `ID~CREATED_AT~N` (no request id holds a `~`): of the entries of that id made then, the
 * one with N newer: what every instance on a database knows it by (their own order of entries may differ).
 * Counted from the newer side, it still names its entry when older ones drop out of the log.
 */
const PLACED = /^([^~]+)~([^~]+)~(\d+)$/

/**
 * An account's entries, oldest first; those before `head` are dropped. The array is cut in batches, into a new
 * one: a list that walks it while its renders drop entries (the bound in bytes) walks the old one undisturbed.
 */
interface AccountLog {
  kept: Kept[]
  head: number
}

/**
 * How long the requests of a forgotten account are kept out of the log, in ms: those under way when it went
 * end within seconds, but a clock advance that waits on slow receivers.
 */
const GONE_KEPT_MS = 10 * 60_000

/**
 * The request log (docs/api.md, "The request log"): the last `size`
 * requests of each account, in memory only, newest last, and at most
 * `maxBytes` (approximately) for every account together, the oldest entry
 * of all going first. Rendering (bodies parsed and redacted, `changes`)
 * waits until an entry is read, so that recording costs a push next to
 * nothing; the rendered entry is kept, and counted, with its trace.
 *
 * @example
 * const log = new RequestLog(1000)
 * log.record('acct_demo', trace)
 * log.list('acct_demo', {status: '4xx'}, {limit: 20}).data
 */
export class RequestLog {
  #byAccount = new Map<string, AccountLog>()
  /** Every kept entry in the order recorded, for the bound in bytes; dropped nodes are skipped, and swept out. */
  #queue: Kept[] = []
  #queueHead = 0
  #live = 0
  #bytes = 0
  /** Ids of each account's entries dropped last (at most `size`): a cursor naming one is past the end, not unknown. */
  #dropped = new Map<string, string[]>()
  #listeners = new Set<(accountId: string, trace: RequestTrace, remote: boolean) => void>()
  #clearListeners = new Set<(accountId: string, forgotten: boolean) => void>()
  /**
   * Accounts forgotten lately, with when (wall ms), oldest first: a request of one still under way when it went
   * (a push whose key was read before) is answered after, and must not make its log again.
   */
  #gone = new Map<string, number>()
  readonly maxBytes: number

  /** `size` 0 keeps nothing; `maxBytes` bounds every account's entries together (default 64 MiB). */
  constructor(
    readonly size: number,
    {maxBytes = REQUEST_LOG_BYTES}: {maxBytes?: number} = {},
  ) {
    this.maxBytes = maxBytes
  }

  get enabled(): boolean {
    return this.size > 0
  }

  /** Approximate bytes the log holds now, every account together. */
  get bytes(): number {
    return this.#bytes
  }

  /**
   * Keeps `trace` as the account's newest entry, dropping the account's oldest beyond `size` and the oldest of
   * all beyond `maxBytes`, and tells the listeners.
   * `remote`: a request another instance on the database answered, with its entry when that instance rendered it.
   */
  record(accountId: string, trace: RequestTrace, remote?: {entry?: RequestEntry}): void {
    if (!this.enabled || this.#gone.has(accountId)) return
    const rendered = remote?.entry
    const kept: Kept = {trace, accountId, bytes: traceBytes(trace) + (rendered ? renderedBytes(rendered) : 0), rendered}
    let log = this.#byAccount.get(accountId)
    if (!log) this.#byAccount.set(accountId, (log = {kept: [], head: 0}))
    log.kept.push(kept)
    this.#queue.push(kept)
    this.#live++
    this.#bytes += kept.bytes
    if (log.kept.length - log.head > this.size) this.#dropOldest(log)
    this.#bound()
    this.#sweep()
    for (const listener of this.#listeners) listener(accountId, trace, remote !== undefined)
  }

  /**
   * The entry as the API shows it, rendered once while the log keeps it. The listeners render the entry being
   * recorded, the newest of all: it is looked for among the newest few (a map from every trace to its node
   * would cost each request more than the rest of its recording). Any other is rendered for the caller alone.
   */
  render(trace: RequestTrace): RequestEntry {
    const queue = this.#queue
    for (let i = queue.length - 1; i >= Math.max(this.#queueHead, queue.length - 8); i--) {
      if (queue[i]!.trace === trace) return this.#render(queue[i]!, trace)
    }
    return renderRequest(trace)
  }

  /**
   * The account's entries newest first, filtered; `starting_after` is the
   * previous page's `next_cursor`: its last id, or, when another entry has
   * that id too (a caller may send an `X-Request-Id` twice), `ID~CREATED_AT~N`.
   * A plain id names the oldest entry of that id: it was the only one when the
   * cursor was given, and the caller may have sent it again since. A
   * cursor whose entry the log has dropped since is past the end: an empty
   * last page. Undefined: a cursor the log never held (or dropped long ago),
   * which the caller reports.
   */
  list(
    accountId: string,
    filters: RequestFilters,
    query: {limit: number; starting_after?: string},
  ): RequestPage | undefined {
    const {kept, head} = this.#byAccount.get(accountId) ?? {kept: [], head: 0}
    // rendering may drop the oldest entries (the bound in bytes): a dropped one has no trace, and is passed
    let i = kept.length - 1
    const after = query.starting_after
    if (after !== undefined) {
      const placed = PLACED.exec(after)
      const id = placed ? placed[1]! : after
      i = placed ? placedAt(kept, head, id, placed[2]!, Number(placed[3])) : oldestOf(kept, head, id)
      if (i < head)
        return this.#wasKept(accountId, id) ? {object: 'list', data: [], has_more: false, next_cursor: null} : undefined
      i--
    }
    const data: RequestEntry[] = []
    let last = i
    for (; i >= head && data.length < query.limit; i--) {
      const {trace} = kept[i]!
      if (trace && requestMatches(trace, filters)) {
        data.push(this.#render(kept[i]!, trace))
        last = i
      }
    }
    let has_more = false
    for (; i >= head && !has_more; i--) {
      const {trace} = kept[i]!
      has_more = trace !== undefined && requestMatches(trace, filters)
    }
    return {object: 'list', data, has_more, next_cursor: has_more ? cursorAt(kept, head, last) : null}
  }

  /** The account's newest entry with this request id. */
  get(accountId: string, id: string): RequestEntry | undefined {
    const {kept, head} = this.#byAccount.get(accountId) ?? {kept: [], head: 0}
    const at = newestOf(kept, head, id)
    return at < head ? undefined : this.#render(kept[at]!, kept[at]!.trace!)
  }

  /** Forgets the account's entries (`POST /v1/sim/reset`); `remote`: another instance's reset, told to no listener. */
  clear(accountId: string, remote = false): void {
    this.#dropAll(accountId)
    if (!remote) for (const listener of this.#clearListeners) listener(accountId, false)
  }

  /**
   * Forgets a deleted account altogether, the ids kept for its cursors too: no key can ask for them again,
   * and a server that runs for months keeps nothing of the scratch accounts it has seen come and go.
   */
  forget(accountId: string, remote = false): void {
    this.#dropAll(accountId)
    this.#dropped.delete(accountId)
    const now = Date.now()
    for (const [gone, at] of this.#gone) {
      if (now - at < GONE_KEPT_MS) break
      this.#gone.delete(gone)
    }
    this.#gone.delete(accountId)
    this.#gone.set(accountId, now)
    if (!remote) for (const listener of this.#clearListeners) listener(accountId, true)
  }

  /** Calls `listener` with each account whose entries `clear`, or `forget` (`forgotten`), dropped here. */
  onClear(listener: (accountId: string, forgotten: boolean) => void): () => void {
    this.#clearListeners.add(listener)
    return () => this.#clearListeners.delete(listener)
  }

  /** Calls `listener` with each entry as it is recorded: the live streams. */
  subscribe(listener: (accountId: string, trace: RequestTrace, remote: boolean) => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  #render(kept: Kept, trace: RequestTrace): RequestEntry {
    if (kept.rendered) return kept.rendered
    const entry = (kept.rendered = renderRequest(trace))
    // parsed bodies may weigh more than their text: counted as soon as they are kept
    const bytes = renderedBytes(entry)
    kept.bytes += bytes
    this.#bytes += bytes
    this.#bound()
    return entry
  }

  /** Drops the oldest entries of all while the log holds more than `maxBytes`; the newest stays, whatever it weighs. */
  #bound(): void {
    while (this.#bytes > this.maxBytes && this.#live > 1) {
      const kept = this.#queue[this.#queueHead]!
      this.#queueHead++
      if (!kept.trace) continue
      // the oldest entry of all is the oldest its account holds
      this.#dropOldest(this.#byAccount.get(kept.accountId)!)
    }
  }

  #dropOldest(log: AccountLog): void {
    const kept = log.kept[log.head]!
    log.head++
    this.#release(kept)
    // each cut removes at least as many nodes as it keeps: O(1) a drop on average
    if (log.head >= 64 && log.head * 2 >= log.kept.length) {
      log.kept = log.kept.slice(log.head)
      log.head = 0
    }
  }

  #dropAll(accountId: string): void {
    const log = this.#byAccount.get(accountId)
    if (!log) return
    for (let i = log.head; i < log.kept.length; i++) this.#release(log.kept[i]!)
    this.#byAccount.delete(accountId)
  }

  #release(kept: Kept): void {
    const {trace} = kept
    if (!trace) return
    let ids = this.#dropped.get(kept.accountId)
    if (!ids) this.#dropped.set(kept.accountId, (ids = []))
    ids.push(trace.id)
    // cut in batches: one splice per `size` drops instead of a shift each
    if (ids.length >= this.size * 2) ids.splice(0, ids.length - this.size)
    kept.trace = undefined
    kept.rendered = undefined
    this.#live--
    this.#bytes -= kept.bytes
  }

  /**
   * Cuts the dropped nodes out of the queue, in batches (each cut removes at least as many nodes as it keeps, so
   * it costs a record O(1) on average): those the bound dropped from its head, and those an account dropped for
   * its count, which wait behind an older entry that is still kept.
   */
  #sweep(): void {
    const queued = this.#queue.length - this.#queueHead
    if (queued >= 1024 && queued >= 2 * this.#live) {
      this.#queue = this.#queue.slice(this.#queueHead).filter((kept) => kept.trace !== undefined)
      this.#queueHead = 0
    } else if (this.#queueHead >= 1024 && this.#queueHead * 2 >= this.#queue.length) {
      this.#queue = this.#queue.slice(this.#queueHead)
      this.#queueHead = 0
    }
  }

  /** Whether `id` was an entry of the account's log: still kept, or dropped lately. */
  #wasKept(accountId: string, id: string): boolean {
    const log = this.#byAccount.get(accountId)
    return Boolean(log?.kept.some((kept) => kept.trace?.id === id) || this.#dropped.get(accountId)?.includes(id))
  }
}

/** Where the newest entry with request id `id` is in `kept`; before `head` when none is. */
function newestOf(kept: readonly Kept[], head: number, id: string): number {
  let i = kept.length - 1
  while (i >= head && kept[i]!.trace?.id !== id) i--
  return i
}

/** Where the oldest entry with request id `id` is in `kept`; before `head` when none is. */
function oldestOf(kept: readonly Kept[], head: number, id: string): number {
  for (let i = head; i < kept.length; i++) if (kept[i]!.trace?.id === id) return i
  return head - 1
}

/** Where the entry a cursor `ID~CREATED_AT~N` names is in `kept`; before `head` when none is (dropped since). */
function placedAt(kept: readonly Kept[], head: number, id: string, createdAt: string, newer: number): number {
  let seen = 0
  for (let i = kept.length - 1; i >= head; i--) {
    const trace = kept[i]!.trace
    if (trace?.id === id && trace.created_at === createdAt && seen++ === newer) return i
  }
  return head - 1
}

/**
 * The cursor of the entry at `at`: its id, unless another entry has that id too (a caller that sends one id
 * again may send it again before the next page), which the id alone would not name.
 */
function cursorAt(kept: readonly Kept[], head: number, at: number): string {
  const {id, created_at} = kept[at]!.trace!
  let shared = false
  let newer = 0
  for (let i = head; i < kept.length; i++) {
    const trace = kept[i]!.trace
    if (i === at || trace?.id !== id) continue
    shared = true
    if (i > at && trace.created_at === created_at) newer++
  }
  return shared ? `${id}~${created_at}~${newer}` : id
}
