import {setResponseStatus} from 'h3'
import {succeeded} from '../../domain/deliveries.js'
import {chosenEndpointKey, deletedEndpoint, endpointKey, renderEndpoint} from '../../domain/endpoints.js'
import {ApiError} from '../../domain/errors.js'
import {newId} from '../../domain/ids.js'
import {
  Deleted,
  RecoverInput,
  Recovery,
  RotateSecretInput,
  WebhookEndpoint,
  WebhookEndpointInput,
  WebhookEndpointUpdate,
  WebhookTestResult,
} from '../../domain/schemas.js'
import {accountOf} from '../internal/auth.js'
import {readJson} from '../internal/body.js'
import {paginate, readListQuery} from '../internal/list.js'
import {findEndpoint} from '../internal/owned.js'
import type {OperationSpec} from '../operations.js'
import {WebhookEndpointWithSecret} from '../schemas.js'

export const webhookEndpointOperations: OperationSpec[] = [
  {
    id: 'createWebhookEndpoint',
    summary: 'Register an endpoint; the answer is the only one with its secret',
    body: WebhookEndpointInput,
    response: WebhookEndpointWithSecret,
    status: [201],
    errors: ['limit_reached'],
    async handler(event, {service}) {
      const input = await readJson(event, WebhookEndpointInput)
      const endpoint = await service.endpoints.create(accountOf(event), input)
      setResponseStatus(event, 201)
      return renderEndpoint(endpoint, true)
    },
  },
  {
    id: 'listWebhookEndpoints',
    summary: 'Registered endpoints',
    response: WebhookEndpoint,
    list: true,
    async handler(event, {service}) {
      const query = readListQuery(event)
      const accountId = accountOf(event)
      const list = (key?: string) =>
        paginate(service.records, 'webhook_endpoints', accountId, {...query, starting_after: key}, undefined, (e) =>
          renderEndpoint(e),
        )
      // a cursor is an endpoint's id; the list pages by where each is kept (endpointKey)
      const id = query.starting_after
      if (id === undefined) return list()
      const live = await service.records.endpoint(accountId, id)
      if (live) return list(endpointKey(live))
      // deleted: its place is kept where it was, under the account's key for the id if it chose it
      return list(chosenEndpointKey(accountId, id)).catch((error: unknown) => {
        if (error instanceof ApiError && error.code === 'validation_failed') return list(id)
        throw error
      })
    },
  },
  {
    id: 'getWebhookEndpoint',
    summary: 'An endpoint',
    response: WebhookEndpoint,
    handler: async (event, app) => renderEndpoint(await findEndpoint(app, event)),
  },
  {
    id: 'deleteWebhookEndpoint',
    summary: 'Delete an endpoint; its pending deliveries are canceled',
    response: Deleted,
    async handler(event, app) {
      const endpoint = await findEndpoint(app, event)
      await app.service.endpoints.delete(endpoint)
      return deletedEndpoint(endpoint.id)
    },
  },
  // a signed ping, sent at once whatever the endpoint's event types, so a receiver can be checked end to end
  {
    id: 'testWebhookEndpoint',
    summary: 'Send a signed ping now and report the answer',
    response: WebhookTestResult,
    async handler(event, app) {
      const endpoint = await findEndpoint(app, event)
      const ping = {
        id: newId('evt'),
        object: 'event',
        type: 'ping',
        created_at: app.now(),
        data: {object: 'ping', endpoint_id: endpoint.id},
      }
      const body = JSON.stringify(ping)
      const result = await app.dispatcher.send(endpoint, ping, body, 1)
      return {
        object: 'webhook_test',
        endpoint_id: endpoint.id,
        event_id: ping.id,
        succeeded: succeeded(result),
        ...result,
      }
    },
  },
  // updates, rotation and recovery (docs/api.md, "Webhooks")
  {
    id: 'updateWebhookEndpoint',
    summary: 'Change the URL, event types or description',
    body: WebhookEndpointUpdate,
    response: WebhookEndpoint,
    async handler(event, app) {
      const endpoint = await findEndpoint(app, event)
      return renderEndpoint(await app.service.endpoints.update(endpoint, await readJson(event, WebhookEndpointUpdate)))
    },
  },
  // the new secret is in this answer and nowhere else; the old one signs beside it until it expires
  {
    id: 'rotateWebhookSecret',
    summary: 'A new secret, in this answer only; the old one signs beside it until it expires (scheduler clock)',
    body: RotateSecretInput,
    response: WebhookEndpointWithSecret,
    async handler(event, app) {
      const endpoint = await findEndpoint(app, event)
      const {expire_after_s} = await readJson(event, RotateSecretInput)
      return renderEndpoint(await app.service.endpoints.rotateSecret(endpoint, expire_after_s), true)
    },
  },
  {
    id: 'recoverWebhookEndpoint',
    summary:
      'Deliver again, oldest first, the subscribed events since a time that no delivery to the endpoint succeeded for',
    body: RecoverInput,
    response: Recovery,
    status: [202],
    errors: ['endpoint_disabled'],
    async handler(event, app) {
      const endpoint = await findEndpoint(app, event)
      const {since} = await readJson(event, RecoverInput)
      const count = await app.service.endpoints.recover(endpoint, since)
      setResponseStatus(event, 202)
      return {object: 'recovery', endpoint_id: endpoint.id, since, event_count: count}
    },
  },
]
