import {setResponseStatus} from 'h3'
import {renderChaos} from '../../domain/chaos.js'
import {renderEndpoint} from '../../domain/endpoints.js'
import {Chaos, ChaosInput, KnownSecretEndpointInput, ListenSecret} from '../../domain/schemas.js'
import {accountOf} from '../internal/auth.js'
import {readJson} from '../internal/body.js'
import {findEndpoint} from '../internal/owned.js'
import type {OperationSpec} from '../operations.js'
import {WebhookEndpointWithSecret} from '../schemas.js'

/**
 * Simulator controls of the receiver side (docs/api.md, "Webhooks"): endpoints with a known
 * secret, the secret `tablepay listen` keeps, and delivery chaos.
 */
export const simWebhookOperations: OperationSpec[] = [
  // the caller chose the secret, so showing it again tells nothing new
  {
    id: 'createWebhookEndpointWithSecret',
    summary: 'Register an endpoint with a secret of your choosing (CI knows it in advance)',
    body: KnownSecretEndpointInput,
    response: WebhookEndpointWithSecret,
    status: [201],
    errors: ['limit_reached'],
    async handler(event, {service}) {
      const input = await readJson(event, KnownSecretEndpointInput)
      const endpoint = await service.endpoints.createWithSecret(accountOf(event), input)
      setResponseStatus(event, 201)
      return renderEndpoint(endpoint, true)
    },
  },
  {
    id: 'getListenSecret',
    summary: 'The secret every `tablepay listen` of the account signs with, made on first use',
    response: ListenSecret,
    handler: async (event, {service}) => ({
      object: 'listen_secret',
      secret: await service.endpoints.listenSecret(accountOf(event)),
    }),
  },
  {
    id: 'getWebhookChaos',
    summary: "The endpoint's delivery chaos",
    response: Chaos,
    handler: async (event, app) => renderChaos(await findEndpoint(app, event)),
  },
  {
    id: 'setWebhookChaos',
    summary: 'Duplicate and reorder deliveries to the endpoint, seeded',
    body: ChaosInput,
    response: Chaos,
    async handler(event, app) {
      const endpoint = await findEndpoint(app, event)
      return renderChaos(await app.service.endpoints.setChaos(endpoint, await readJson(event, ChaosInput)))
    },
  },
  {
    id: 'endWebhookChaos',
    summary: 'End delivery chaos',
    response: Chaos,
    handler: async (event, app) => renderChaos(await app.service.endpoints.endChaos(await findEndpoint(app, event))),
  },
]
