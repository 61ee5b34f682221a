import {defineEventHandler, type Router, setResponseStatus} from 'h3'
import {renderChaos} from '../../domain/chaos.js'
import {renderEndpoint} from '../../domain/endpoints.js'
import {ChaosInput, KnownSecretEndpointInput} from '../../domain/schemas.js'
import type {AppContext} from '../context.js'
import {accountOf} from '../internal/auth.js'
import {readJson} from '../internal/body.js'
import {findEndpoint} from '../internal/owned.js'

/**
 * Simulator controls of the receiver side (docs/api.md, "Webhooks"): endpoints with a known
 * secret, the secret `tablepay listen` keeps, and delivery chaos.
 */
export function simWebhookRoutes(router: Router, app: AppContext): void {
  const {service} = app
  const find = (event: Parameters<typeof accountOf>[0]) => findEndpoint(app, event)

  // the caller chose the secret, so showing it again tells nothing new
  router.post(
    '/v1/sim/webhook-endpoints',
    defineEventHandler(async (event) => {
      const input = await readJson(event, KnownSecretEndpointInput)
      const endpoint = await service.endpoints.createWithSecret(accountOf(event), input)
      setResponseStatus(event, 201)
      return renderEndpoint(endpoint, true)
    }),
  )

  router.post(
    '/v1/sim/listen-secret',
    defineEventHandler(async (event) => ({
      object: 'listen_secret',
      secret: await service.endpoints.listenSecret(accountOf(event)),
    })),
  )

  router.get(
    '/v1/sim/webhook-endpoints/:id/chaos',
    defineEventHandler(async (event) => renderChaos(await find(event))),
  )

  router.put(
    '/v1/sim/webhook-endpoints/:id/chaos',
    defineEventHandler(async (event) => {
      const endpoint = await find(event)
      return renderChaos(await service.endpoints.setChaos(endpoint, await readJson(event, ChaosInput)))
    }),
  )

  router.delete(
    '/v1/sim/webhook-endpoints/:id/chaos',
    defineEventHandler(async (event) => renderChaos(await service.endpoints.endChaos(await find(event)))),
  )
}
