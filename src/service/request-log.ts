import {
  renderRequest,
  type RequestEntry,
  type RequestFilters,
  requestMatches,
  type RequestTrace,
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

/**
 * The request log (docs/api.md, "The request log"): the last `size`
 * requests of each account, in memory only, newest last. Rendering (bodies
 * parsed and redacted, `changes`) waits until an entry is read, so that
 * recording costs a push next to nothing.
 *
 * @example
 * const log = new RequestLog(1000)
 * log.record('acct_demo', trace)
 * log.list('acct_demo', {status: '4xx'}, {limit: 20}).data
 */
export class RequestLog {
  #byAccount = new Map<string, RequestTrace[]>()
  /** Ids of each account's entries dropped last (at most `size`): a cursor naming one is past the end, not unknown. */
  #dropped = new Map<string, string[]>()
  #listeners = new Set<(accountId: string, trace: RequestTrace, remote: boolean) => void>()
  #rendered = new WeakMap<RequestTrace, RequestEntry>()
  #clearListeners = new Set<(accountId: string, forgotten: boolean) => void>()

  /** `size` 0 keeps nothing. */
  constructor(readonly size: number) {}

  get enabled(): boolean {
    return this.size > 0
  }

  /**
   * Keeps `trace` as the account's newest entry, dropping the oldest beyond `size`, and tells the listeners.
   * `remote` is the entry of a request another instance on the database answered, as it rendered it.
   */
  record(accountId: string, trace: RequestTrace, remote?: RequestEntry): void {
    if (!this.enabled) return
    if (remote) this.#rendered.set(trace, remote)
    let entries = this.#byAccount.get(accountId)
    if (!entries) this.#byAccount.set(accountId, (entries = []))
    entries.push(trace)
    // dropped in batches: one splice per `size` requests instead of a shift each
    if (entries.length >= this.size * 2) this.#drop(accountId, entries.splice(0, entries.length - this.size))
    for (const listener of this.#listeners) listener(accountId, trace, remote !== undefined)
  }

  /** The entry as the API shows it, rendered once. */
  render(trace: RequestTrace): RequestEntry {
    let entry = this.#rendered.get(trace)
    if (!entry) this.#rendered.set(trace, (entry = renderRequest(trace)))
    return entry
  }

  /**
   * The account's entries newest first, filtered; `starting_after` is the
   * last id of the previous page. A cursor whose entry the log has dropped
   * since is past the end: an empty last page. Undefined: a cursor the log
   * never held (or dropped long ago), which the caller reports.
   */
  list(
    accountId: string,
    filters: RequestFilters,
    query: {limit: number; starting_after?: string},
  ): RequestPage | undefined {
    const entries = this.#kept(accountId)
    let i = entries.length - 1
    const after = query.starting_after
    if (after !== undefined) {
      while (i >= 0 && entries[i]!.id !== after) i--
      if (i === -1)
        return this.#wasKept(accountId, after)
          ? {object: 'list', data: [], has_more: false, next_cursor: null}
          : undefined
      i--
    }
    const data: RequestEntry[] = []
    for (; i >= 0 && data.length < query.limit; i--) {
      if (requestMatches(entries[i]!, filters)) data.push(this.render(entries[i]!))
    }
    let has_more = false
    for (; i >= 0 && !has_more; i--) has_more = requestMatches(entries[i]!, filters)
    return {object: 'list', data, has_more, next_cursor: has_more ? data[data.length - 1]!.id : null}
  }

  /** The account's newest entry with this request id. */
  get(accountId: string, id: string): RequestEntry | undefined {
    const entries = this.#kept(accountId)
    for (let i = entries.length - 1; i >= 0; i--) if (entries[i]!.id === id) return this.render(entries[i]!)
    return undefined
  }

  /** Forgets the account's entries (`POST /v1/sim/reset`); `remote`: another instance's reset, told to no listener. */
  clear(accountId: string, remote = false): void {
    this.#drop(accountId, this.#byAccount.get(accountId) ?? [])
    this.#byAccount.delete(accountId)
    if (!remote) for (const listener of this.#clearListeners) listener(accountId, false)
  }

  /**
   * Forgets a deleted account altogether, the ids kept for its cursors too: no key can ask for them again,
   * and a server that runs for months keeps nothing of the scratch accounts it has seen come and go.
   */
  forget(accountId: string, remote = false): void {
    this.#byAccount.delete(accountId)
    this.#dropped.delete(accountId)
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

  #drop(accountId: string, traces: RequestTrace[]): void {
    const ids = [...(this.#dropped.get(accountId) ?? []), ...traces.map((trace) => trace.id)]
    this.#dropped.set(accountId, ids.slice(-this.size))
  }

  /** Whether `id` was an entry of the account's log: kept beyond `size` until the next batch drops, or dropped lately. */
  #wasKept(accountId: string, id: string): boolean {
    return Boolean(
      this.#byAccount.get(accountId)?.some((trace) => trace.id === id) || this.#dropped.get(accountId)?.includes(id),
    )
  }

  #kept(accountId: string): RequestTrace[] {
    const entries = this.#byAccount.get(accountId) ?? []
    return entries.length > this.size ? entries.slice(entries.length - this.size) : entries
  }
}
