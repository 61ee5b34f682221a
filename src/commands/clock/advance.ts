import {Args} from '@oclif/core'
import type {Clock} from '../../client/client.js'
import {BaseCommand} from '../../lib/base-command.js'
import {formatDuration} from '../../lib/duration.js'
import {positiveDuration} from '../../lib/duration-input.js'
import {formatDateTime, plural} from '../../lib/format.js'
import {withSpinner} from '../../lib/spinner.js'

export default class ClockAdvance extends BaseCommand<typeof ClockAdvance> {
  static override summary = 'Move the scheduler clock forward and run every delivery attempt that falls due.'

  static override description = `The webhook scheduler runs on a clock of its own. Advancing it by DURATION runs, in order and at once, every attempt \
due on the way, including the retries those attempts schedule: the whole 35-hour retry schedule takes milliseconds. \
Signatures and created_at keep the real time. The command returns when all of it has run.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> 2h',
    {description: 'Walk the whole retry schedule', command: '<%= config.bin %> <%= command.id %> 36h'},
    {description: 'Seconds work too', command: '<%= config.bin %> <%= command.id %> 90'},
  ]

  static override args = {
    DURATION: Args.string({description: 'How far: 90 (seconds), 45s, 5m, 2h, 1d, 1h30m.', required: true}),
  }

  public async run(): Promise<Clock & {attempts: number}> {
    const seconds = this.parseDuration(this.args.DURATION)
    const clock = await withSpinner('Running what falls due', this.client.advanceClock(seconds), {quiet: this.jsonEnabled()})
    this.log(`Clock advanced ${formatDuration(seconds)} to ${formatDateTime(clock.now)}; ${plural(clock.attempts, 'delivery attempt')} ran.`)
    return clock
  }

  // a bad argument is a usage error (exit 2), like a bad flag
  private parseDuration(text: string): number {
    try {
      return positiveDuration(text)
    } catch {
      this.error(`"${text}" is not a duration above zero: write it like 90, 45s, 5m, 2h, 1d or 1h30m.`, {exit: 2, code: 'invalid_usage'})
    }
  }
}
