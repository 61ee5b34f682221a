import {defineEventHandler, type Router} from 'h3'
import {ClockAdvance} from '../../domain/schemas.js'
import type {AppContext} from '../context.js'
import {readJson} from '../internal/body.js'

/** The attempts out a running advance shows, oldest first: enough to name who it waits for. */
const SHOWN_OUT = 5

/**
 * The scheduler clock: read it, move it forward and run everything that
 * falls due, or put it back on the wall clock. The dispatcher saves the
 * offset as it moves, so a restart keeps it (docs/api.md "Webhooks", the scheduler clock).
 */
export function clockRoutes(router: Router, {clock, dispatcher, pruner}: AppContext): void {
  const iso = (ms: number) => new Date(ms).toISOString()

  // what a running advance waits for: `clock advance` shows it while it waits
  const advancing = () => {
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
  const render = () => ({
    object: 'clock',
    now: iso(clock.now()),
    offset_seconds: clock.offset / 1000,
    time_scale: clock.timeScale,
    advance: advancing(),
  })

  router.get(
    '/v1/sim/clock',
    defineEventHandler(async () => {
      // another instance on the database may have moved the shared clock (docs/postgres.md)
      await dispatcher.syncClock()
      return render()
    }),
  )

  router.post(
    '/v1/sim/clock/advance',
    defineEventHandler(async (event) => {
      const {seconds} = await readJson(event, ClockAdvance)
      const attempts = await dispatcher.advance(seconds)
      // time passing forgets what is past retention: an advance answers once that has caught up
      await pruner?.catchUp()
      return {...render(), attempts}
    }),
  )

  router.post(
    '/v1/sim/clock/reset',
    defineEventHandler(async () => {
      await dispatcher.reset()
      return render()
    }),
  )
}
