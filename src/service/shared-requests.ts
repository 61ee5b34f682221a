import {boundedEntry, type RequestEntry, type RequestTrace, sharedTrace, traceOf} from '../domain/request-log.js'
import type {RequestLog} from './request-log.js'
import type {SharedStorage} from './storage.js'

/** The topics of the notes that carry requests between instances: their traces, or entries cut to fit a note. */
const TRACE = 'request_trace'
const ENTRY = 'request'

/** The topic of the notes that say an account's log was cleared (a reset), or forgotten (the account deleted). */
const CLEARED = 'requests_cleared'

/** A note's entry stays under this many bytes of JSON: a notification holds at most 8000. */
const ENTRY_BYTES = 7000

interface TraceNote {
  account_id: string
  trace: RequestTrace
}

interface EntryNote {
  account_id: string
  entry: RequestEntry
}

interface ClearNote {
  account_id: string
  forgotten?: true
}

/**
 * Makes the request log of each instance on one database hold the others'
 * requests too, as they come: each request this one logs goes to the others
 * as a note (its trace, or its entry cut to fit one: docs/postgres.md), and theirs are logged
 * here, so `GET /v1/sim/requests` and `/v1/sim/stream` show every
 * instance's. Resets and deleted accounts go along too. Best effort: a note
 * lost with a connection is not sent again.
 *
 * @example
 * const stop = shareRequests(requests, storage.shared)
 */
export function shareRequests(requests: RequestLog, shared: SharedStorage): () => void {
  const unfollow = requests.subscribe((accountId, trace, remote) => {
    if (remote) return
    // the trace, which each instance renders when it is read, as its own: rendering it here cost a push on
    // PostgreSQL a third of its CPU (docs/postgres.md, "The request log across instances")
    if (shared.broadcast(TRACE, () => ({account_id: accountId, trace: sharedTrace(trace)}) satisfies TraceNote)) return
    const entry = boundedEntry(requests.render(trace), ENTRY_BYTES)
    if (entry) shared.broadcast(ENTRY, () => ({account_id: accountId, entry}) satisfies EntryNote)
  })
  const unlistenTraces = shared.listen(TRACE, (note) => {
    const {account_id, trace} = note as TraceNote
    requests.record(account_id, trace, {})
  })
  const unlistenEntries = shared.listen(ENTRY, (note) => {
    const {account_id, entry} = note as EntryNote
    requests.record(account_id, traceOf(entry), {entry})
  })
  const unclear = requests.onClear((accountId, forgotten) =>
    shared.broadcast(CLEARED, () => ({account_id: accountId, ...(forgotten ? {forgotten} : {})}) satisfies ClearNote),
  )
  const unlistenClear = shared.listen(CLEARED, (note) => {
    const {account_id, forgotten} = note as ClearNote
    if (forgotten) requests.forget(account_id, true)
    else requests.clear(account_id, true)
  })
  return () => {
    for (const stop of [unfollow, unlistenTraces, unlistenEntries, unclear, unlistenClear]) stop()
  }
}
