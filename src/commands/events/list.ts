import {Flags} from '@oclif/core'
import type {Event, List} from '../../client/client.js'
import {EVENT_TYPES} from '../../domain/constants.js'
import {ApiCommand} from '../../cli/api-command.js'
import {renderEventList} from '../../cli/views/event.js'
import {EVENT_TYPE_FLAG} from '../../cli/flags/event-types.js'
import {pageFlags, pageParams} from '../../cli/flags/page.js'
import {renderPage} from '../../cli/views/page.js'

export default class EventsList extends ApiCommand<typeof EventsList> {
  static override summary = 'List events, newest first.'

  static override description =
    'Every event the account produced, whether or not an endpoint received it. The data of each is the resource as its GET returned it then.'

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    {description: 'Only closed checks', command: '<%= config.bin %> <%= command.id %> --event-type check.closed'},
  ]

  static override flags = {
    ...pageFlags('events'),
    'event-type': Flags.option({...EVENT_TYPE_FLAG, summary: 'Only events of this type.', options: EVENT_TYPES})(),
  }

  public async run(): Promise<List<Event>> {
    const page = await this.client.listEvents({...pageParams(this.flags), type: this.flags['event-type']})
    this.log(renderPage(page, renderEventList, 'events', this.nextPage))
    return page
  }
}
