import {arg} from '../../cli/flags/arg.js'
import type {Clock} from '../../client/client.js'
import {ApiCommand, timeoutFlag} from '../../cli/api-command.js'
import {advanceProgress, goesOn, goingOn} from '../../cli/views/clock.js'
import {STOPPED_WAITING_EXIT_CODES} from '../../cli/exit-codes.js'
import {sayingOnSignal} from '../../cli/shutdown.js'
import {formatDuration} from '../../domain/duration.js'
import {MAX_ADVANCE_S} from '../../domain/schemas.js'
import {durationUpTo} from '../../cli/flags/duration.js'
import {formatDateTime, plural} from '../../cli/views/format.js'
import {spinnerShown, withSpinner} from '../../cli/views/spinner.js'

/** How often a person watching an advance gets its progress. */
const POLL_MS = 1000

export default class ClockAdvance extends ApiCommand<typeof ClockAdvance> {
  static override summary = 'Move the scheduler clock forward and run every delivery attempt that falls due.'

  static override description = `The webhook scheduler runs on a clock of its own. Advancing it by DURATION runs, in order, \
every attempt due on the way, including the retries those attempts schedule: with receivers that answer, the whole \
35-hour retry schedule takes milliseconds. A receiver that does not answer takes the real receiver timeout (10s unless \
serve --receiver-timeout says otherwise) for each of its attempts, one after another; the other endpoints' attempts do \
not wait for it, and the command shows what it waits for. Signatures and created_at keep the real time. The command \
returns when all of it has run. One advance goes at most 3650d.`

  static override exitCodes = STOPPED_WAITING_EXIT_CODES

  // its answer waits for the attempts due on the way, each up to the receiver timeout
  static override baseFlags = {...ApiCommand.baseFlags, timeout: timeoutFlag(0)}

  static override examples = [
    '<%= config.bin %> <%= command.id %> 2h',
    {description: 'Walk the whole retry schedule', command: '<%= config.bin %> <%= command.id %> 36h'},
    {description: 'Seconds work too', command: '<%= config.bin %> <%= command.id %> 90'},
  ]

  static override args = {
    DURATION: arg({description: 'How far: 90 (seconds), 45s, 5m, 2h, 1d, 1h30m.', required: true}),
  }

  public async run(): Promise<Clock & {attempts: number}> {
    const seconds = this.parseDuration(this.args.DURATION)
    const advancing = sayingOnSignal(goingOn('advance'), this.client.advanceClock(seconds), this.jsonEnabled())
    const progress = this.watch(advancing)
    const clock = await withSpinner('Running what falls due', advancing, {quiet: this.jsonEnabled(), progress}).catch(
      goesOn('advance'),
    )
    this.log(
      `Clock advanced ${formatDuration(seconds)} to ${formatDateTime(clock.now)}; ${plural(clock.attempts, 'delivery attempt')} ran.`,
    )
    return clock
  }

  /** While the spinner shows, reads the clock now and then for what the advance waits for (a receiver's timeout). */
  private watch(advancing: Promise<unknown>): (() => string | undefined) | undefined {
    if (!spinnerShown(this.jsonEnabled())) return undefined
    let latest: Clock | undefined
    let done = false
    advancing.finally(() => (done = true)).catch(() => undefined)
    const poll = async () => {
      while (!done) {
        await new Promise((resolve) => setTimeout(resolve, POLL_MS).unref())
        // as the tails read: a read to draw the command is not the user's traffic (docs/api.md, "The request log")
        latest = await this.tailClient.getClock().catch(() => latest)
      }
    }
    void poll()
    // one line: a spinner text wider than the terminal is redrawn wrapped
    const fit = (text: string | undefined) => text?.slice(0, (process.stderr.columns || 80) - 3)
    return () => (latest ? fit(advanceProgress(latest)) : undefined)
  }

  // a bad argument is a usage error (exit 2), like a bad flag, found before anything is sent
  private parseDuration(text: string): number {
    try {
      return durationUpTo(text, MAX_ADVANCE_S, 'the most the clock advances at once')
    } catch (error) {
      this.error(`${(error as Error).message}.`, {exit: 2, code: 'invalid_usage'})
    }
  }
}
