import type {Clock} from '../../client/client.js'
import {ApiCommand, timeoutFlag} from '../../cli/api-command.js'
import {goesOn, goingOn, renderClock} from '../../cli/views/clock.js'
import {STOPPED_WAITING_EXIT_CODES} from '../../cli/exit-codes.js'
import {sayingOnSignal} from '../../cli/shutdown.js'
import {withSpinner} from '../../cli/views/spinner.js'

export default class ClockReset extends ApiCommand<typeof ClockReset> {
  static override summary = 'Put the scheduler clock back on real time.'

  static override description = `Undoes every \`clock advance\`. Pending deliveries keep the time they are due at: \
a retry scheduled on the advanced clock now waits until real time gets there (or the next advance does). The \
clock is the server's, shared by every account. A reset waits for an advance under way to end.`

  // behind an advance under way, its answer waits as long as the advance does
  static override baseFlags = {...ApiCommand.baseFlags, timeout: timeoutFlag(0)}

  static override exitCodes = STOPPED_WAITING_EXIT_CODES

  static override examples = ['<%= config.bin %> <%= command.id %>']

  public async run(): Promise<Clock> {
    const clock = await withSpinner(
      'Putting the clock back (after any advance under way)',
      sayingOnSignal(goingOn('reset'), this.client.resetClock(), this.jsonEnabled()),
      {
        quiet: this.jsonEnabled(),
      },
    ).catch(goesOn('reset'))
    this.log(`${renderClock(clock)} Pending retries keep their due times.`)
    return clock
  }
}
