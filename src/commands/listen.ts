import {Flags} from '@oclif/core'
import {openAttemptFeed} from '../lib/attempt-feed.js'
import {BaseCommand} from '../lib/base-command.js'
import {attemptJson, renderAttemptLine} from '../lib/delivery-view.js'
import {eventTypesFlag, eventTypesOf} from '../lib/event-types-flag.js'
import {abortOnSignal} from '../lib/shutdown.js'
import {style} from '../lib/style.js'

export default class Listen extends BaseCommand<typeof Listen> {
  static override summary = 'Forward webhooks to a local receiver and show each attempt.'

  static override description = `Registers a webhook endpoint for --forward-to, prints its signing secret, then prints every delivery attempt to it, \
one line each (--json: a ready line with the endpoint and secret, then one JSON line per attempt). \
On Ctrl+C the endpoint is deleted, unless --keep.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> --forward-to http://localhost:3000/webhooks',
    {description: 'Only payments, and keep the endpoint afterwards', command: '<%= config.bin %> <%= command.id %> --forward-to http://localhost:3000/webhooks -e payment.succeeded,payment.refunded --keep'},
  ]

  static override flags = {
    'forward-to': Flags.string({summary: 'URL of your receiver.', required: true}),
    'event-type': eventTypesFlag(),
    keep: Flags.boolean({summary: 'Leave the endpoint registered on exit.'}),
  }

  public async run(): Promise<void> {
    const stopped = abortOnSignal()
    // subscribe first, so not one attempt to the new endpoint can be missed
    const feed = await openAttemptFeed(this.client, {signal: stopped})
    const endpoint = await this.client.createWebhookEndpoint({
      url: this.flags['forward-to'],
      event_types: eventTypesOf(this.flags['event-type']),
      description: 'tablepay listen',
    })
    this.emit(
      {status: 'ready', endpoint_id: endpoint.id, url: endpoint.url, event_types: endpoint.event_types, secret: endpoint.secret},
      [
        `Forwarding ${endpoint.event_types.length} event types to ${style.bold(endpoint.url)} (endpoint ${endpoint.id})`,
        `Signing secret: ${style.bold(endpoint.secret)}`,
        style.dim(`Ctrl+C to stop${this.flags.keep ? '' : ' and remove the endpoint'}.`),
      ].join('\n'),
    )
    try {
      for await (const {delivery, attempt} of feed) {
        if (delivery.endpoint_id === endpoint.id) this.emit(attemptJson(delivery, attempt), renderAttemptLine(delivery, attempt))
      }
    } finally {
      // after Ctrl+C; a server that went away took nothing to clean up with it
      if (!this.flags.keep && stopped.aborted) {
        await this.client.deleteWebhookEndpoint(endpoint.id)
        this.notice(`Removed endpoint ${endpoint.id}.`)
      }
    }
  }
}
