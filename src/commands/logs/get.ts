import {arg} from '../../cli/flags/arg.js'
import type {RequestEntry} from '../../client/client.js'
import {ApiCommand} from '../../cli/api-command.js'
import {renderRequestDetail} from '../../cli/views/request.js'

export default class LogsGet extends ApiCommand<typeof LogsGet> {
  static override summary = 'Show one API request: what was sent, what was answered, what it changed.'

  static override description =
    'The request id is the X-Request-Id of the answer (every error body and every CLI error prints it too). Secrets are redacted.'

  static override examples = ['<%= config.bin %> <%= command.id %> req_4f0b6k2m9q1x8s7d3a5z']

  static override args = {REQ_ID: arg({description: 'Request id (X-Request-Id).', required: true})}

  public async run(): Promise<RequestEntry> {
    const entry = await this.client.getRequest(this.args.REQ_ID)
    this.log(renderRequestDetail(entry))
    return entry
  }
}
