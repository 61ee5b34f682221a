import type {List} from '../../client/client.js'
import {Command} from '../../cli/command.js'
import {renderTable} from '../../cli/views/table.js'
import {listShipped} from '../../scenarios/files.js'

export default class ScenarioList extends Command {
  static override summary = 'List the shipped scenarios that `scenario run NAME` runs.'

  static override description = `Each is a file of fixtures/scenarios/ in the package, a starting point for your own (docs/scenarios.md). \
No server is needed.`

  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']

  // --json prints the shape of every other list, though the files are local: scripts read one shape
  public async run(): Promise<List<{name: string; description: string; steps: number; file: string}>> {
    // it takes no flag but --json: any other is a wrong command line
    await this.parse(ScenarioList)
    const shipped = await listShipped()
    this.log(
      renderTable(shipped, [
        {header: 'NAME', value: (s) => s.name},
        {header: 'STEPS', value: (s) => String(s.steps), align: 'right'},
        {header: 'DESCRIPTION', value: (s) => s.description},
      ]),
    )
    return {object: 'list', data: shipped, has_more: false, next_cursor: null}
  }
}
