import type {List, Location} from '../../client/client.js'
import {ApiCommand} from '../../cli/api-command.js'
import {wholeList} from '../../cli/list-pages.js'
import {renderTable} from '../../cli/views/table.js'

export default class LocationsList extends ApiCommand<typeof LocationsList> {
  static override summary = "List the account's locations."

  static override description =
    'Every location of the account the API key belongs to. A check push needs --location when there is more than one.'

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    {
      description: 'Location ids only, for scripts',
      command: "<%= config.bin %> <%= command.id %> --json | jq -r '.data[].id'",
    },
  ]

  public async run(): Promise<List<Location>> {
    const locations = await wholeList((params) => this.client.listLocations(params))
    this.log(
      renderTable(locations.data, [
        {header: 'ID', value: (l) => l.id},
        {header: 'NAME', value: (l) => l.name},
        {header: 'TIMEZONE', value: (l) => l.timezone},
        {header: 'CURRENCY', value: (l) => l.currency},
      ]),
    )
    return locations
  }
}
