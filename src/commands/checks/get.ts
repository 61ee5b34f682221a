import {Flags} from '@oclif/core'
import type {Check} from '../../client/client.js'
import {ApiCommand} from '../../cli/api-command.js'
import {checkArg} from '../../cli/check-ref.js'
import {renderCheckItems, renderCheckSummary, renderTotals} from '../../cli/views/check.js'
import {qrFlag} from '../../cli/flags/qr.js'
import {renderGuestQr} from '../../cli/views/qr.js'

export default class ChecksGet extends ApiCommand<typeof ChecksGet> {
  static override summary = 'Show a check with its items and totals.'

  static override description = `ID is the check's id (chk_…) or the id your POS pushed it under. \
An ID that does not start with chk_ is taken as the POS id; --external forces that reading.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> chk_4f0b6k2m9q1x8s7d3a5z',
    {description: 'By the POS id it was pushed under', command: '<%= config.bin %> <%= command.id %> t12'},
    {
      description: 'A POS id that starts with chk_',
      command: '<%= config.bin %> <%= command.id %> --external chk_pos_42',
    },
    {description: 'With the QR code of its table page', command: '<%= config.bin %> <%= command.id %> t12 --qr'},
  ]

  static override args = {
    ID: checkArg({required: true}),
  }

  static override flags = {
    external: Flags.boolean({summary: 'Read ID as the POS check id.'}),
    qr: qrFlag,
  }

  public async run(): Promise<Check> {
    const check = await this.args.ID.fetch(this.client, {external: this.flags.external})
    this.log(`${renderCheckSummary(check)}\n\n${renderCheckItems(check)}\n\n${renderTotals(check)}`)
    if (this.flags.qr) this.log(await renderGuestQr(check))
    return check
  }
}
