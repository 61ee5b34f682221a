import {arg} from '../../cli/flags/arg.js'
import {ApiCommand} from '../../cli/api-command.js'
import {plural} from '../../cli/views/format.js'

export default class FaultsClear extends ApiCommand<typeof FaultsClear> {
  static override summary = 'Remove one fault, or all of them.'

  static override description =
    "Only this account's faults go; requests they would have struck are answered as usual. `tablepay faults list` shows the faults left."

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> flt_4f0b6k2m9q1x8s7d3a5z',
  ]

  static override args = {ID: arg({description: 'Fault id (flt_…); without it, every fault of the account.'})}

  public async run(): Promise<{deleted: number}> {
    const cleared = await this.client.clearFaults(this.args.ID)
    this.log(`Removed ${plural(cleared.deleted, 'fault')}.`)
    return cleared
  }
}
