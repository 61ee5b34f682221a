import {arg} from '../../cli/flags/arg.js'
import type {Event} from '../../client/client.js'
import {ApiCommand} from '../../cli/api-command.js'
import {renderEventDetail} from '../../cli/views/event.js'

export default class EventsGet extends ApiCommand<typeof EventsGet> {
  static override summary = 'Show an event envelope with its data.'

  static override description = 'The envelope a receiver gets: id (deduplicate on it), type, created_at and data.'

  static override examples = ['<%= config.bin %> <%= command.id %> evt_4f0b6k2m9q1x8s7d3a5z']

  static override args = {ID: arg({description: 'Event id (evt_…).', required: true})}

  public async run(): Promise<Event> {
    const event = await this.client.getEvent(this.args.ID)
    this.log(renderEventDetail(event))
    return event
  }
}
