import {boundedEntry, type RequestEntry, traceOf} from '../domain/request-log.js'
import type {RequestLog} from './request-log.js'
import type {SharedStorage} from './storage.js'

/** The topic of the notes that carry request log entries between instances. */
const TOPIC = 'request'

/** The topic of the notes that say an account's log was cleared (a reset), or forgotten (the account deleted). */
const CLEARED = 'requests_cleared'

/** A note's entry stays under this many bytes of JSON: a notification holds at most 8000. */
const ENTRY_BYTES = 7000

interface RequestNote {
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
 * as a note (bodies cut to fit one, docs/postgres.md), and theirs are logged
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
    const entry = boundedEntry(requests.render(trace), ENTRY_BYTES)
    if (entry) shared.broadcast(TOPIC, {account_id: accountId, entry} satisfies RequestNote)
  })
  const unlisten = shared.listen(TOPIC, (note) => {
    const {account_id, entry} = note as RequestNote
    requests.record(account_id, traceOf(entry), entry)
  })
  const unclear = requests.onClear((accountId, forgotten) =>
    shared.broadcast(CLEARED, {account_id: accountId, ...(forgotten ? {forgotten} : {})} satisfies ClearNote),
  )
  const unlistenClear = shared.listen(CLEARED, (note) => {
    const {account_id, forgotten} = note as ClearNote
    if (forgotten) requests.forget(account_id, true)
    else requests.clear(account_id, true)
  })
  return () => {
    for (const stop of [unfollow, unlisten, unclear, unlistenClear]) stop()
  }
}
