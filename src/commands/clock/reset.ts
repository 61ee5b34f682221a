import type {Clock} from '../../client/client.js'
import {ApiCommand} from '../../cli/api-command.js'
import {renderClock} from '../../cli/views/clock.js'

export default class ClockReset extends ApiCommand<typeof ClockReset> {
  static override summary = 'Put the scheduler clock back on real time.'

  static override description = `Undoes every \`clock advance\`. Pending deliveries keep the time they are due at: \
a retry scheduled on the advanced clock now waits until real time gets there (or the next advance does). The \
clock is the server's, shared by every account.`

  static override examples = ['<%= config.bin %> <%= command.id %>']

  public async run(): Promise<Clock> {
    const clock = await this.client.resetClock()
    this.log(`${renderClock(clock)} Pending retries keep their due times.`)
    return clock
  }
}
