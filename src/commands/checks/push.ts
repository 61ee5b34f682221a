import {Flags} from '@oclif/core'
import {arg} from '../../cli/flags/arg.js'
import type {Check, CheckPush} from '../../client/client.js'
import {ApiCommand} from '../../cli/api-command.js'
import {API_EXIT_CODES} from '../../cli/exit-codes.js'
import {renderCheckSummary, renderPushResult} from '../../cli/views/check.js'
import {qrFlag} from '../../cli/flags/qr.js'
import {renderGuestQr} from '../../cli/views/qr.js'
import {readJsonObject} from '../../cli/read-json.js'
import {posId} from '../../cli/check-ref.js'
import {textFlag} from '../../cli/flags/filter.js'

export default class ChecksPush extends ApiCommand<typeof ChecksPush> {
  static override summary = 'Push the complete current state of a check.'

  static override description = `Sends the check body (table, status, items, totals, and optionally version and location_id) for the POS check EXTERNAL_ID. \
The body is the whole check, not a change: pushing the same body again changes nothing, and a body with a lower "version" than the stored one is stale and ignored.

Prints what happened (created, updated, unchanged or stale) and the check; --json prints the check resource.`

  static override examples = [
    // the demo account has two locations, so a new check names one (docs/cli.md)
    '<%= config.bin %> <%= command.id %> t12 --file fixtures/checks/open.json --location loc_main',
    {
      description: 'Body from stdin',
      command: '<%= config.bin %> <%= command.id %> t12 --location loc_main < check.json',
    },
    {
      description: 'An account with one location, or a check pushed before, needs no --location',
      command: '<%= config.bin %> <%= command.id %> t12 -f fixtures/checks/open.json',
    },
    {
      description: 'The sample check, for another table',
      command: '<%= config.bin %> <%= command.id %> t7 -f fixtures/checks/open.json --location loc_main --table 7',
    },
    {
      description: "Then show guests the table's QR code",
      command: '<%= config.bin %> <%= command.id %> t12 -f fixtures/checks/open.json --location loc_main --qr',
    },
  ]

  static override exitCodes = {
    ...API_EXIT_CODES,
    2: 'A wrong command line, or input that is empty or holds no JSON object (missing_input, invalid_json): nothing was sent.',
  }

  static override args = {
    EXTERNAL_ID: arg({
      description: "Your POS's id of the check.",
      required: true,
      parse: async (t) => posId(t),
    }),
  }

  static override flags = {
    file: Flags.string({char: 'f', summary: 'JSON file with the check body; - or no flag reads stdin.'}),
    location: textFlag({char: 'l', summary: 'Location id, set as location_id in the body.'}),
    table: textFlag({summary: 'Table number, set as table.number in the body.'}),
    qr: qrFlag,
  }

  public async run(): Promise<Check> {
    const {file, location, table} = this.flags
    // Not validated here: the server is the one judge of a body, so the CLI never disagrees with the API.
    const body = {
      ...(await readJsonObject(file)),
      ...(location ? {location_id: location} : {}),
      // a table is its number alone (the API's CheckTable)
      ...(table ? {table: {number: table}} : {}),
    } as CheckPush
    const {check, result} = await this.client.pushCheck(this.args.EXTERNAL_ID, body)
    this.log(renderPushResult(result, check, body.version))
    this.log(renderCheckSummary(check))
    if (this.flags.qr) this.log(await renderGuestQr(check))
    return check
  }
}
