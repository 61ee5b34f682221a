import {setTimeout as sleep} from 'node:timers/promises'
import type {Event, TablepayClient} from '../client/client.js'
import {TablepayError} from '../client/errors.js'
import {type SubsetDifference, subsetDifferences} from '../domain/json-subset.js'
import {durationSeconds, type StepInput} from '../domain/scenario.js'

const DEFAULT_WITHIN_S = 5
const POLL_MS = 100

/**
 * The events of a run: those made after the newest event when it started (or when its last restore answered).
 * Each read takes only the events made since the last, so a run that makes many reads no more per poll.
 */
export class RunEvents {
  /** The run's events read so far, oldest first. */
  readonly #events: Event[] = []

  private constructor(
    private readonly client: TablepayClient,
    /** The id of the newest event read: the next read stops there. */
    private mark: string | undefined,
  ) {}

  /** The run's events from now on. */
  static async from(client: TablepayClient): Promise<RunEvents> {
    return new RunEvents(client, (await client.listEvents({limit: 1})).data[0]?.id)
  }

  /** Every event of the run so far, oldest first, read from the server. */
  async read(): Promise<readonly Event[]> {
    const made: Event[] = []
    let after: string | undefined
    for (;;) {
      const list = await this.client.listEvents({limit: 100, ...(after ? {starting_after: after} : {})})
      // up to the mark; where it is gone (a reset, retention), so are the events before it: to the list's end
      const marked = list.data.findIndex((event) => event.id === this.mark)
      made.push(...(marked === -1 ? list.data : list.data.slice(0, marked)))
      if (marked !== -1 || !list.has_more || !list.next_cursor) break
      after = list.next_cursor
    }
    this.mark = made[0]?.id ?? this.mark
    this.#events.push(...made.reverse())
    return this.#events
  }
}

/** Whether a delivery of the event succeeded: a receiver acknowledged it with a 2xx. */
async function delivered(client: TablepayClient, event: Event): Promise<boolean> {
  return (await client.listDeliveries({event_id: event.id, status: 'succeeded', limit: 1})).data.length > 0
}

export interface EventOutcome {
  title: string
  ok: boolean
  differences: SubsetDifference[]
  error?: string
  /** The event found (the oldest that matches): the step's answer. */
  event?: Event
}

/**
 * Waits, on the real clock, until an event of the run matches the step: its
 * type, its `json` subset and, with `delivered`, a succeeded delivery. Reads
 * the events list every 100 ms until `within` (default 5 s) has passed.
 *
 * @example
 * await awaitEvent(client, {type: 'payment.succeeded', within: '5s'}, await RunEvents.from(client)) // {ok: true, event, …}
 */
export async function awaitEvent(
  client: TablepayClient,
  {type, json, within, delivered: mustBeDelivered}: StepInput<'expect_event'>,
  events: RunEvents,
  signal?: AbortSignal,
): Promise<EventOutcome> {
  const seconds = within === undefined ? DEFAULT_WITHIN_S : durationSeconds(within)
  const title = `expect_event ${type}${mustBeDelivered ? ' delivered' : ''} within ${typeof within === 'string' ? within : `${seconds}s`}`
  const deadline = performance.now() + seconds * 1000
  const expected = {type, ...json}
  let newest: Event | undefined
  let undelivered: Event | undefined
  try {
    for (;;) {
      const ofType = (await events.read()).filter((event) => event.type === type)
      newest = ofType.at(-1)
      const matching = ofType.filter((event) => subsetDifferences(expected, event).length === 0)
      for (const event of matching) {
        if (!mustBeDelivered || (await delivered(client, event))) return {title, ok: true, differences: [], event}
        undelivered = event
      }
      if (performance.now() >= deadline) break
      // an aborted run stops reading: the wait rejects, and the run's own abort says why
      await sleep(POLL_MS, undefined, {signal})
    }
  } catch (error) {
    // the server failed a read (gone, too slow, a fault): the step fails, and the run goes on to its report
    if (!(error instanceof TablepayError)) throw error
    return {title, ok: false, differences: [], error: error.message}
  }
  if (undelivered)
    return {title, ok: false, differences: [], error: `${undelivered.id} matches, but no receiver acknowledged it`}
  const differences = newest ? subsetDifferences(expected, newest) : [{path: '.', expected}]
  const error = newest ? `no ${type} event of this run matches; the newest differs` : `no ${type} event in this run`
  return {title, ok: false, differences, error}
}
