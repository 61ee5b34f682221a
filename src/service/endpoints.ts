import {randomInt} from 'node:crypto'
import {startChaos} from '../domain/chaos.js'
import {cancelDelivery, eventsToRecover, requireEnabled} from '../domain/deliveries.js'
import {
  chosenEndpointKey,
  createEndpoint,
  DEFAULT_SECRET_OVERLAP_S,
  endpointKey,
  knownSecretEndpoint,
  newSecret,
  retiredSecret,
  rotateSecret,
  updateEndpoint,
} from '../domain/endpoints.js'
import {ApiError, invalidField} from '../domain/errors.js'
import {checkLimit, limitOf} from '../domain/limits.js'
import type {WebhookEndpointRecord} from '../domain/records.js'
import type {
  ChaosInput,
  KnownSecretEndpointInput,
  WebhookEndpointInput,
  WebhookEndpointUpdate,
} from '../domain/schemas.js'
import {actingAccount} from './accounts.js'
import type {Reader} from './storage.js'
import type {ServiceContext} from './context.js'
import type {Outbox} from './outbox.js'

/**
 * Within a unit that adds an endpoint: the account still exists and has room for one more. Reading the
 * account locks it (on PostgreSQL), so two additions of one account count in turn.
 */
async function admitEndpoint(tx: Reader, accountId: string, limit: number): Promise<void> {
  await actingAccount(tx, accountId)
  checkLimit('webhook_endpoints', await tx.count('webhook_endpoints', accountId), limit)
}

/** Webhook endpoints: where an account's events are delivered. */
export class Endpoints {
  readonly #limit: number

  constructor(
    readonly context: ServiceContext,
    readonly outbox: Outbox,
  ) {
    this.#limit = limitOf(context.limits, 'webhook_endpoints')
  }

  /**
   * Registers an endpoint with a new signing secret.
   *
   * @example
   * const input = {url: 'https://example.com/hooks', event_types: ['check.created']}
   * const endpoint = await service.endpoints.create('acct_demo', input)
   */
  create(accountId: string, input: WebhookEndpointInput): Promise<WebhookEndpointRecord> {
    const endpoint = createEndpoint(accountId, input, this.context.now(), this.context.strictUrls)
    return this.outbox.unit({reads: ['accounts', 'webhook_endpoints'], account: accountId}, async (tx) => {
      await admitEndpoint(tx, accountId, this.#limit)
      tx.put('webhook_endpoints', endpointKey(endpoint), endpoint)
      return endpoint
    })
  }

  /**
   * Deletes the endpoint; nothing more goes to it, so its pending deliveries end with it, in the same unit of work.
   * The deletion names the account: its live stream says so (`endpoint_deleted`).
   */
  delete(endpoint: WebhookEndpointRecord): Promise<void> {
    const now = this.context.now()
    return this.outbox.unit({reads: ['webhook_endpoints', 'deliveries']}, async (tx) => {
      const pending = await tx.list('deliveries', endpoint.account_id, {endpoint_id: endpoint.id, status: 'pending'})
      tx.delete('webhook_endpoints', endpointKey(endpoint), endpoint.account_id)
      for (const delivery of pending) tx.put('deliveries', delivery.id, cancelDelivery(delivery, now))
    })
  }

  // Known secrets, rotation, updates, recovery and chaos (docs/api.md, "Webhooks"): each reads the
  // endpoint as it is now inside its unit, so a change made meanwhile (a chaos draw) is kept.

  /**
   * Registers an endpoint with a secret the caller chose (`POST /sim/webhook-endpoints`, `listen`).
   *
   * @example
   * const endpoint = await service.endpoints.createWithSecret('acct_demo', {url, event_types, secret: 'whsec_ci_…'})
   */
  createWithSecret(accountId: string, input: KnownSecretEndpointInput): Promise<WebhookEndpointRecord> {
    const endpoint = knownSecretEndpoint(accountId, input, this.context.now(), this.context.strictUrls)
    return this.outbox.unit({reads: ['accounts', 'webhook_endpoints'], account: accountId}, async (tx) => {
      await admitEndpoint(tx, accountId, this.#limit)
      if (await endpointOf(tx, accountId, endpoint.id))
        throw invalidField(
          'id',
          `${endpoint.id} is taken in this account: choose another id, leave id out for one the server makes, or delete that endpoint first`,
        )
      tx.put('webhook_endpoints', endpointKey(endpoint), endpoint)
      return endpoint
    })
  }

  /** Changes the URL, event types or description; the rules of creation apply. */
  update(endpoint: WebhookEndpointRecord, input: WebhookEndpointUpdate): Promise<WebhookEndpointRecord> {
    const {now, strictUrls} = this.context
    return this.outbox.unit({reads: ['webhook_endpoints'], account: endpoint.account_id}, async (tx) => {
      const current = await latest(tx, endpoint)
      const updated = updateEndpoint(current, input, now(), strictUrls)
      if (updated !== current) tx.put('webhook_endpoints', endpointKey(updated), updated)
      return updated
    })
  }

  /**
   * A new secret; the old one signs beside it for `expireAfterS` more seconds of the scheduler clock.
   *
   * @example
   * const {secret} = await service.endpoints.rotateSecret(endpoint, 3600)
   */
  rotateSecret(
    endpoint: WebhookEndpointRecord,
    expireAfterS = DEFAULT_SECRET_OVERLAP_S,
  ): Promise<WebhookEndpointRecord> {
    const {now, clock} = this.context
    return this.outbox.unit({reads: ['webhook_endpoints'], account: endpoint.account_id}, async (tx) => {
      const rotated = rotateSecret(await latest(tx, endpoint), expireAfterS, clock.now(), now())
      tx.put('webhook_endpoints', endpointKey(rotated), rotated)
      return rotated
    })
  }

  /**
   * Sends again, oldest first, every event since `since` (and since the endpoint was made) that has a
   * delivery to it and no succeeded one; resolves with how many.
   */
  recover(endpoint: WebhookEndpointRecord, since: string): Promise<number> {
    return this.outbox.unit(
      {reads: ['webhook_endpoints', 'events', 'deliveries'], account: endpoint.account_id},
      async (tx) => {
        const current = await latest(tx, endpoint)
        const account = current.account_id
        const events = await tx.list('events', account)
        const deliveries = await tx.list('deliveries', account, {endpoint_id: current.id})
        requireEnabled(current.id, current)
        return this.outbox.redeliver(tx, current, eventsToRecover(events, deliveries, current, since)).length
      },
    )
  }

  /** Starts (or restarts, drawing from the first again) delivery chaos on the endpoint. */
  setChaos(endpoint: WebhookEndpointRecord, input: ChaosInput): Promise<WebhookEndpointRecord> {
    const chaos = startChaos(input, () => randomInt(2 ** 32))
    return this.outbox.unit({reads: ['webhook_endpoints'], account: endpoint.account_id}, async (tx) => {
      const updated = {...(await latest(tx, endpoint)), chaos}
      tx.put('webhook_endpoints', endpointKey(updated), updated)
      return updated
    })
  }

  /** Ends delivery chaos; deliveries already delayed keep their due times. */
  endChaos(endpoint: WebhookEndpointRecord): Promise<WebhookEndpointRecord> {
    return this.outbox.unit({reads: ['webhook_endpoints'], account: endpoint.account_id}, async (tx) => {
      const {chaos: _, ...calm} = await latest(tx, endpoint)
      tx.put('webhook_endpoints', endpointKey(calm), calm)
      return calm
    })
  }

  /**
   * The secret every `tablepay listen` of the account signs with, made on first use and kept
   * with the account: a receiver under development keeps verifying across `listen` runs.
   */
  listenSecret(accountId: string): Promise<string> {
    const secret = newSecret()
    return this.outbox.unit({reads: ['accounts']}, async (tx) => {
      const account = await actingAccount(tx, accountId)
      if (account.listen_secret) return account.listen_secret
      tx.put('accounts', account.id, {...account, listen_secret: secret})
      return secret
    })
  }
}

/**
 * The account's endpoint `id`, wherever it is kept (`endpointKey`): under its id, or, when the caller chose
 * that id, under the account's key for it. Another account's endpoint is as absent as a missing one.
 *
 * @example
 * const endpoint = await endpointOf(tx, 'acct_demo', 'we_ci_receiver')
 */
export async function endpointOf(
  reader: Reader,
  accountId: string,
  id: string,
): Promise<WebhookEndpointRecord | undefined> {
  const kept = await reader.get('webhook_endpoints', id)
  if (kept?.account_id === accountId && kept.stored_as === undefined) return kept
  const chosen = await reader.get('webhook_endpoints', chosenEndpointKey(accountId, id))
  return chosen?.account_id === accountId ? chosen : undefined
}

/** The endpoint as stored now: one deleted since the route found it is gone. */
async function latest(tx: Reader, endpoint: WebhookEndpointRecord): Promise<WebhookEndpointRecord> {
  const current = await tx.get('webhook_endpoints', endpointKey(endpoint))
  if (!current) throw new ApiError('not_found', `No webhook endpoint ${endpoint.id} in this account.`)
  return current
}

/**
 * Retires every previous secret that has expired at scheduler time `clockNow`, before the clock is put back (a
 * reset, a restore), where it would sign again (`retiredSecret`). One unit per account, each endpoint locked and
 * decided again: a rotation meanwhile keeps its secrets.
 */
export async function retireExpiredSecrets(context: ServiceContext, outbox: Outbox, clockNow: number): Promise<void> {
  const expired = (await context.storage.all('webhook_endpoints')).filter((e) => retiredSecret(e, clockNow))
  for (const account of new Set(expired.map((endpoint) => endpoint.account_id))) {
    await outbox.unit({reads: ['webhook_endpoints'], account}, async (tx) => {
      for (const listed of expired.filter((endpoint) => endpoint.account_id === account)) {
        const endpoint = await tx.getExclusive('webhook_endpoints', endpointKey(listed))
        const retired = endpoint && retiredSecret(endpoint, clockNow)
        if (retired) tx.put('webhook_endpoints', endpointKey(retired), retired)
      }
    })
  }
}
