import {defineEventHandler, type Router} from 'h3'
import {ClockAdvance} from '../../domain/schemas.js'
import {put} from '../../store/store.js'
import type {AppContext} from '../context.js'
import {readJson} from '../internal/body.js'

export const CLOCK_SETTING = 'clock_offset_ms'

/** The scheduler clock: read it, or move it forward and run everything that falls due. */
export function clockRoutes(router: Router, {store, clock, dispatcher}: AppContext): void {
  const render = () => ({object: 'clock', now: new Date(clock.now()).toISOString(), offset_seconds: clock.offset / 1000, time_scale: clock.timeScale})

  router.get(
    '/v1/sim/clock',
    defineEventHandler(() => render()),
  )

  router.post(
    '/v1/sim/clock/advance',
    defineEventHandler(async (event) => {
      const {seconds} = await readJson(event, ClockAdvance)
      const attempts = await dispatcher.advance(seconds)
      // the offset is kept, so deliveries scheduled on the advanced clock stay due after a restart
      await store.commit([put('settings', CLOCK_SETTING, {id: CLOCK_SETTING, account_id: '', value: clock.offset})])
      return {...render(), attempts}
    }),
  )
}
