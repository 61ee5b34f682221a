import {defineEventHandler, type Router, setResponseStatus} from 'h3'
import {succeeded} from '../../domain/deliveries.js'
import {endpointKey, renderEndpoint} from '../../domain/endpoints.js'
import {newId} from '../../domain/ids.js'
import {RecoverInput, RotateSecretInput, WebhookEndpointInput, WebhookEndpointUpdate} from '../../domain/schemas.js'
import type {AppContext} from '../context.js'
import {accountOf} from '../internal/auth.js'
import {readJson} from '../internal/body.js'
import {paginate, readListQuery} from '../internal/list.js'
import {findEndpoint} from '../internal/owned.js'

export function webhookEndpointRoutes(router: Router, app: AppContext): void {
  const {service} = app
  const find = (event: Parameters<typeof accountOf>[0]) => findEndpoint(app, event)

  router.post(
    '/v1/webhook-endpoints',
    defineEventHandler(async (event) => {
      const input = await readJson(event, WebhookEndpointInput)
      const endpoint = await service.endpoints.create(accountOf(event), input)
      setResponseStatus(event, 201)
      return renderEndpoint(endpoint, true)
    }),
  )

  router.get(
    '/v1/webhook-endpoints',
    defineEventHandler(async (event) => {
      const query = readListQuery(event)
      const accountId = accountOf(event)
      // a cursor is an endpoint's id; the list pages by where each is kept
      const after = query.starting_after && (await service.records.endpoint(accountId, query.starting_after))
      const cursor = after ? {...query, starting_after: endpointKey(after)} : query
      return paginate(service.records, 'webhook_endpoints', accountId, cursor, undefined, (e) => renderEndpoint(e))
    }),
  )

  router.get(
    '/v1/webhook-endpoints/:id',
    defineEventHandler(async (event) => renderEndpoint(await find(event))),
  )

  router.delete(
    '/v1/webhook-endpoints/:id',
    defineEventHandler(async (event) => {
      const endpoint = await find(event)
      await service.endpoints.delete(endpoint)
      return {id: endpoint.id, object: 'webhook_endpoint', deleted: true}
    }),
  )

  // a signed ping, sent at once whatever the endpoint's event types, so a receiver can be checked end to end
  router.post(
    '/v1/webhook-endpoints/:id/test',
    defineEventHandler(async (event) => {
      const endpoint = await find(event)
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
    }),
  )

  // updates, rotation and recovery (docs/api.md, "Webhooks")
  router.patch(
    '/v1/webhook-endpoints/:id',
    defineEventHandler(async (event) => {
      const endpoint = await find(event)
      return renderEndpoint(await service.endpoints.update(endpoint, await readJson(event, WebhookEndpointUpdate)))
    }),
  )

  // the new secret is in this answer and nowhere else; the old one signs beside it until it expires
  router.post(
    '/v1/webhook-endpoints/:id/rotate-secret',
    defineEventHandler(async (event) => {
      const endpoint = await find(event)
      const {expire_after_s} = await readJson(event, RotateSecretInput)
      return renderEndpoint(await service.endpoints.rotateSecret(endpoint, expire_after_s), true)
    }),
  )

  router.post(
    '/v1/webhook-endpoints/:id/recover',
    defineEventHandler(async (event) => {
      const endpoint = await find(event)
      const {since} = await readJson(event, RecoverInput)
      const count = await service.endpoints.recover(endpoint, since)
      setResponseStatus(event, 202)
      return {object: 'recovery', endpoint_id: endpoint.id, since, event_count: count}
    }),
  )
}
