import {defineEventHandler, type Router, setResponseStatus} from 'h3'
import {cancelDelivery, succeeded} from '../../domain/deliveries.js'
import {createEndpoint, renderEndpoint} from '../../domain/endpoints.js'
import {newId} from '../../domain/ids.js'
import {WebhookEndpointInput} from '../../domain/schemas.js'
import {put} from '../../store/store.js'
import type {AppContext} from '../context.js'
import {accountOf} from '../internal/auth.js'
import {readJson} from '../internal/body.js'
import {paginate, readListQuery} from '../internal/list.js'
import {findOwned} from '../internal/owned.js'

export function webhookEndpointRoutes(router: Router, app: AppContext): void {
  const {store} = app
  const endpoints = store.tables.webhook_endpoints
  const find = (event: Parameters<typeof accountOf>[0]) => findOwned(endpoints, event, 'webhook endpoint')

  router.post(
    '/v1/webhook-endpoints',
    defineEventHandler(async (event) => {
      const input = await readJson(event, WebhookEndpointInput)
      const endpoint = createEndpoint(accountOf(event), input, app.now(), app.strictUrls)
      await store.commit([put('webhook_endpoints', endpoint.id, endpoint)])
      setResponseStatus(event, 201)
      return renderEndpoint(endpoint, true)
    }),
  )

  router.get(
    '/v1/webhook-endpoints',
    defineEventHandler((event) => {
      const query = readListQuery(event)
      return paginate(endpoints.idsOf(accountOf(event)), (id) => endpoints.get(id), query, () => true, (e) => renderEndpoint(e))
    }),
  )

  router.get(
    '/v1/webhook-endpoints/:id',
    defineEventHandler((event) => renderEndpoint(find(event))),
  )

  router.delete(
    '/v1/webhook-endpoints/:id',
    defineEventHandler(async (event) => {
      const endpoint = find(event)
      // nothing more goes to it: its pending deliveries end with it, in the same write
      const {deliveries} = store.tables
      const pending = deliveries.idsOf(endpoint.account_id).map((id) => deliveries.get(id)!).filter((d) => d.endpoint_id === endpoint.id && d.status === 'pending')
      const now = app.now()
      await store.commit([['webhook_endpoints', endpoint.id, null], ...pending.map((d) => put('deliveries', d.id, cancelDelivery(d, now)))])
      return {id: endpoint.id, object: 'webhook_endpoint', deleted: true}
    }),
  )

  // a signed ping, sent at once whatever the endpoint's event types, so a receiver can be checked end to end
  router.post(
    '/v1/webhook-endpoints/:id/test',
    defineEventHandler(async (event) => {
      const endpoint = find(event)
      const ping = {id: newId('evt'), object: 'event', type: 'ping', created_at: app.now(), data: {object: 'ping', endpoint_id: endpoint.id}}
      const body = JSON.stringify(ping)
      const result = await app.dispatcher.send(endpoint, ping, body, 1)
      return {object: 'webhook_test', endpoint_id: endpoint.id, event_id: ping.id, succeeded: succeeded(result), ...result}
    }),
  )
}
