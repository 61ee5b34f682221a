import type {Clock} from '../../client/client.js'
import {ApiCommand} from '../../cli/api-command.js'
import {renderClock} from '../../cli/views/clock.js'

export default class ClockShow extends ApiCommand<typeof ClockShow> {
  static override summary = 'Show the scheduler clock: its time and how far it is ahead of real time.'

  static override description = `Delivery attempts and retries are due on the scheduler clock. \`clock advance\` moves it \
forward, \`clock reset\` puts it back on real time.`

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    {
      description: 'Seconds the advances added, for scripts (a --time-scale clock runs ahead of this too: read .now)',
      command: '<%= config.bin %> <%= command.id %> --json | jq .offset_seconds',
    },
  ]

  public async run(): Promise<Clock> {
    const clock = await this.client.getClock()
    this.log(renderClock(clock))
    return clock
  }
}
