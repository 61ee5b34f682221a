import type {Clock} from '../../client/client.js'
import {TablepayError} from '../../client/errors.js'
import {formatDuration} from '../../domain/duration.js'
import {formatDateTime, plural} from './format.js'

/**
 * `2h30m ahead of real time`, or `on real time`: how far advances have moved the clock, and how far a faster
 * or slower one (`--time-scale`) has run from real time since, against `now` (wall clock, ms).
 */
function lead(clock: Clock, now: number): string {
  // an advance's target counts the real time its attempts took: to the second is what matters
  const ahead = clock.time_scale === 1 ? clock.offset_seconds : (Date.parse(clock.now) - now) / 1000
  const seconds = Math.round(ahead)
  if (seconds < 0) return `${formatDuration(-seconds)} behind real time`
  return seconds > 0 ? `${formatDuration(seconds)} ahead of real time` : 'on real time'
}

/** What `clock show` prints: the scheduler time, how far it is ahead, and its speed. */
export function renderClock(clock: Clock, now = Date.now()): string {
  const speed = clock.time_scale === 1 ? '' : `, running ${clock.time_scale}x`
  return `Scheduler clock: ${formatDateTime(clock.now)} (${lead(clock, now)}${speed}).`
}

/**
 * The spinner text while an advance waits, from `GET /sim/clock`: the
 * attempt out the longest, which may need the whole receiver timeout, and
 * where the clock is (docs/api.md "Webhooks", the scheduler clock).
 */
export function advanceProgress(clock: Clock, now = Date.now()): string | undefined {
  const advance = clock.advance
  if (!advance) return undefined
  const at = `clock at ${formatDateTime(clock.now)}`
  const [oldest] = advance.waiting_for
  if (!oldest) return `Running what falls due: ${at}`
  const waited = Math.max(0, Math.floor((now - Date.parse(oldest.since)) / 1000))
  const timeout = formatDuration(advance.receiver_timeout_ms / 1000)
  const others = advance.attempts_out > 1 ? ` (${plural(advance.attempts_out, 'attempt')} out)` : ''
  return `Waiting for ${oldest.endpoint_id}${others}: no answer for ${formatDuration(waited)} of ${timeout}; ${at}`
}

/**
 * Rethrows what a clock change gave, saying for a `--timeout` that ran out that the server goes on with it:
 * sent again, an advance would be made twice.
 *
 * @example
 * await withSpinner('Running what falls due', client.advanceClock(60)).catch(goesOn('advance'))
 */
export const goesOn =
  (change: 'advance' | 'reset') =>
  (error: unknown): never => {
    if (!(error instanceof TablepayError) || error.code !== 'server_timeout') throw error
    throw new TablepayError('server_timeout', `${error.message} ${goingOn(change)}`)
  }

/** What a clock command that stopped waiting leaves under way: its change, which goes on in the server. */
export function goingOn(change: 'advance' | 'reset'): string {
  const again = change === 'advance' ? '; running this again would advance it a second time' : ''
  return `The ${change} goes on in the server all the same: \`tablepay clock show\` shows the clock${again}.`
}
