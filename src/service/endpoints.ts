import {cancelDelivery} from '../domain/deliveries.js'
import {createEndpoint} from '../domain/endpoints.js'
import type {WebhookEndpointRecord} from '../domain/records.js'
import type {WebhookEndpointInput} from '../domain/schemas.js'
import type {ServiceContext} from './context.js'
import type {Outbox} from './outbox.js'

/** Webhook endpoints: where an account's events are delivered. */
export class Endpoints {
  constructor(
    readonly context: ServiceContext,
    readonly outbox: Outbox,
  ) {}

  /**
   * Registers an endpoint with a new signing secret.
   *
   * @example
   * const input = {url: 'https://example.com/hooks', event_types: ['check.created']}
   * const endpoint = await service.endpoints.create('acct_demo', input)
   */
  create(accountId: string, input: WebhookEndpointInput): Promise<WebhookEndpointRecord> {
    const endpoint = createEndpoint(accountId, input, this.context.now(), this.context.strictUrls)
    return this.outbox.commit(async (tx) => {
      tx.put('webhook_endpoints', endpoint.id, endpoint)
      return endpoint
    })
  }

  /** Deletes the endpoint; nothing more goes to it, so its pending deliveries end with it, in the same unit of work. */
  delete(endpoint: WebhookEndpointRecord): Promise<void> {
    const now = this.context.now()
    return this.outbox.commit(async (tx) => {
      const pending = await tx.list('deliveries', endpoint.account_id, {endpoint_id: endpoint.id, status: 'pending'})
      tx.delete('webhook_endpoints', endpoint.id)
      for (const delivery of pending) tx.put('deliveries', delivery.id, cancelDelivery(delivery, now))
    })
  }
}
