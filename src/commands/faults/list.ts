import type {Fault, List} from '../../client/client.js'
import {ApiCommand} from '../../cli/api-command.js'
import {wholeList} from '../../cli/list-pages.js'
import {renderFaultList} from '../../cli/views/fault.js'
import {renderPage} from '../../cli/views/page.js'

export default class FaultsList extends ApiCommand<typeof FaultsList> {
  static override summary = 'List the faults still to strike, newest first.'

  static override description =
    'When several match a request, the oldest wins. A fault that has struck its --times is gone; a restart or `POST /v1/sim/reset` removes them all.'

  static override examples = ['<%= config.bin %> <%= command.id %>']

  public async run(): Promise<List<Fault>> {
    const page = await wholeList((params) => this.client.listFaults(params))
    this.log(renderPage(page, renderFaultList, 'faults', this.nextPage))
    return page
  }
}
