import {Clock, ClockAdvance} from '../../domain/schemas.js'
import {isoTime as iso} from '../../domain/timestamps.js'
import type {AppContext} from '../context.js'
import {readJson} from '../internal/body.js'
import {noAnswer} from '../internal/traffic.js'
import {AdvanceCutShort} from '../../webhooks/clock-driver.js'
import type {OperationSpec} from '../operations.js'

/** The attempts out a running advance shows, oldest first: enough to name who it waits for. */
const SHOWN_OUT = 5

/** What a running advance waits for: `clock advance` shows it while it waits. */
function advancing({dispatcher}: AppContext) {
  const progress = dispatcher.progress
  if (!progress) return null
  return {
    to: iso(progress.target),
    receiver_timeout_ms: dispatcher.timeoutMs,
    attempts_out: progress.out.length,
    waiting_for: progress.out
      .slice(0, SHOWN_OUT)
      .map((out) => ({endpoint_id: out.endpointId, delivery_id: out.deliveryId, since: iso(out.since)})),
  }
}

// every answer is the same resource, `advance` included: null once no advance runs
const render = (app: AppContext) => ({
  object: 'clock',
  now: iso(app.clock.now()),
  // to the millisecond: a fraction of one (an advance of 0.0001 s) would show as float noise (99390.00010009766)
  offset_seconds: Math.round(app.clock.offset) / 1000,
  time_scale: app.clock.timeScale,
  advance: advancing(app),
})

/**
 * The scheduler clock: read it, move it forward and run everything that
 * falls due, or put it back on the wall clock. The dispatcher saves the
 * offset as it moves, so a restart keeps it (docs/api.md "Webhooks", the scheduler clock).
 */
export const clockOperations: OperationSpec[] = [
  {
    id: 'getClock',
    summary: 'The scheduler clock',
    response: Clock,
    async handler(_, app) {
      // another instance on the database may have moved the shared clock (docs/postgres.md)
      await app.dispatcher.syncClock()
      return render(app)
    },
  },
  {
    id: 'advanceClock',
    summary: 'Move the scheduler clock forward, running every attempt that falls due',
    body: ClockAdvance,
    response: Clock,
    async handler(event, app) {
      const {seconds} = await readJson(event, ClockAdvance)
      const attempts = await app.dispatcher.advance(seconds).catch((error: unknown) => {
        // the server stops under it: no answer, as from a server gone, rather than one saying the clock got there
        if (error instanceof AdvanceCutShort) noAnswer(event)
        throw error
      })
      // the clock as the advance left it: a reset queued behind it runs while retention catches up
      const advanced = {...render(app), attempts}
      // time passing forgets what is past retention: an advance answers once that has caught up
      await app.pruner?.catchUp()
      return advanced
    },
  },
  {
    id: 'resetClock',
    summary: 'Put the scheduler clock back on real time; pending deliveries keep their due times',
    response: Clock,
    async handler(_, app) {
      await app.dispatcher.reset()
      return render(app)
    },
  },
]
