import {EVENT_TYPES} from './constants.js'
import {invalidField} from './errors.js'
import {newId, randomToken} from './ids.js'
import {sameInOrder} from './arrays.js'
import type {WebhookEndpointRecord} from './records.js'
import type {KnownSecretEndpointInput, WebhookEndpoint, WebhookEndpointInput, WebhookEndpointUpdate} from './schemas.js'
import {isoTime} from './timestamps.js'

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i

/**
 * The API requires HTTPS (docs/api.md, "Webhooks"). A local simulator also accepts plain http to this
 * machine (a receiver under development), unless `strictUrls` is set.
 */
export function checkEndpointUrl(url: string, strictUrls: boolean): void {
  const {protocol, hostname} = new URL(url)
  if (protocol === 'https:') return
  if (strictUrls) throw invalidField('url', 'must be an https URL (the server runs with --strict-urls)')
  if (!LOOPBACK.test(hostname))
    throw invalidField('url', 'must be an https URL; plain http is accepted only for localhost, 127.0.0.0/8 and [::1]')
}

export function createEndpoint(
  accountId: string,
  input: WebhookEndpointInput,
  now: string,
  strictUrls: boolean,
): WebhookEndpointRecord {
  checkEndpointUrl(input.url, strictUrls)
  return {
    id: newId('we'),
    object: 'webhook_endpoint',
    url: input.url,
    // every type when left out, as `webhooks create` and `listen` register (docs/api.md, "Webhooks")
    event_types: [...new Set(input.event_types ?? EVENT_TYPES)],
    description: input.description ?? null,
    status: 'enabled',
    created_at: now,
    updated_at: now,
    account_id: accountId,
    secret: newSecret(),
    consecutive_dead: 0,
  }
}

/** The public endpoint; the secret only in the answer that created it (docs/api.md). */
export function renderEndpoint(record: WebhookEndpointRecord, withSecret = false): WebhookEndpoint & {secret?: string} {
  return {
    id: record.id,
    object: record.object,
    url: record.url,
    event_types: record.event_types,
    description: record.description,
    status: record.status,
    ...(withSecret ? {secret: record.secret} : {}),
    created_at: record.created_at,
    updated_at: record.updated_at,
  }
}

/** A signing secret the caller chooses (docs/api.md, "Webhooks", known secrets): its form, and the rule in words. */
export const SECRET_FORMAT = /^whsec_[A-Za-z0-9+/=_-]{24,100}$/
export const SECRET_RULE = 'must be whsec_ followed by 24-100 of A-Z a-z 0-9 + / = _ -'

/** A new signing secret: `whsec_` and 32 random characters. */
export const newSecret = () => `whsec_${randomToken(32)}`

/**
 * An endpoint whose secret the caller chose: a seed's, `POST /sim/webhook-endpoints`, `listen`'s
 * (docs/api.md, "Webhooks", known secrets). Without an `id`, a new one.
 *
 * @example
 * const endpoint = knownSecretEndpoint('acct_demo', {url, event_types: ['check.created'], secret: 'whsec_ci_…'}, now, false)
 */
export function knownSecretEndpoint(
  accountId: string,
  {id, secret, ...input}: KnownSecretEndpointInput,
  now: string,
  strictUrls: boolean,
): WebhookEndpointRecord {
  const endpoint = {...createEndpoint(accountId, input, now, strictUrls), secret}
  return id ? {...endpoint, id, stored_as: chosenEndpointKey(accountId, id)} : endpoint
}

/** Where the account's endpoint with the id `id` is kept when the caller chose that id (`stored_as`). */
export const chosenEndpointKey = (accountId: string, id: string): string => `${accountId}/${id}`

/**
 * The key the endpoint is kept under: its id, unless its id was chosen by the caller (docs/api.md,
 * "Webhooks": ids are the account's own).
 */
export const endpointKey = (endpoint: WebhookEndpointRecord): string => endpoint.stored_as ?? endpoint.id

/** The id of account `accountId`'s endpoint kept under `key` (`endpointKey`). */
export function endpointIdOf(accountId: string, key: string): string {
  const chosen = chosenEndpointKey(accountId, '')
  return key.startsWith(chosen) ? key.slice(chosen.length) : key
}

/** What says endpoint `id` was deleted: the answer to its `DELETE`, and the live stream's `endpoint_deleted`. */
export const deletedEndpoint = (id: string) => ({id, object: 'webhook_endpoint' as const, deleted: true as const})

/**
 * `PATCH /webhook-endpoints/{id}`: the fields given, under the rules of creation. A disabled
 * endpoint stays disabled (docs/api.md, "Webhooks").
 */
export function updateEndpoint(
  endpoint: WebhookEndpointRecord,
  input: WebhookEndpointUpdate,
  now: string,
  strictUrls: boolean,
): WebhookEndpointRecord {
  if (input.url !== undefined) checkEndpointUrl(input.url, strictUrls)
  const url = input.url ?? endpoint.url
  const eventTypes = input.event_types === undefined ? endpoint.event_types : [...new Set(input.event_types)]
  const description = input.description ?? endpoint.description
  const same =
    url === endpoint.url && description === endpoint.description && sameInOrder(eventTypes, endpoint.event_types)
  // an update that changes nothing leaves the endpoint as it was, `updated_at` included, as a push does
  if (same) return endpoint
  return {...endpoint, url, event_types: eventTypes, description, updated_at: now}
}

/** The overlap a rotation gives when the caller names none: a day. */
export const DEFAULT_SECRET_OVERLAP_S = 86_400

/**
 * A new secret; the old one keeps signing beside it until `expireAfterS` has passed on the
 * scheduler clock (`clockNow`, ms). A secret older than the one replaced is dropped: at most
 * two sign at once.
 *
 * @example
 * const rotated = rotateSecret(endpoint, 3600, clock.now(), now)
 */
export function rotateSecret(
  endpoint: WebhookEndpointRecord,
  expireAfterS: number,
  clockNow: number,
  now: string,
): WebhookEndpointRecord {
  return {
    ...endpoint,
    secret: newSecret(),
    previous_secret: endpoint.secret,
    previous_secret_expires_at: isoTime(clockNow + expireAfterS * 1000),
    updated_at: now,
  }
}

/**
 * The secrets an attempt is signed with at scheduler time `clockNow` (ms): the current one,
 * and the one before a rotation until it expires (its `v1` comes second).
 *
 * @example
 * signingSecrets(endpoint, clock.now()) // ['whsec_new…', 'whsec_old…'] during the overlap
 */
export function signingSecrets(
  endpoint: Pick<WebhookEndpointRecord, 'secret' | 'previous_secret' | 'previous_secret_expires_at'>,
  clockNow: number,
): string[] {
  const expires = endpoint.previous_secret_expires_at
  if (expires === undefined || endpoint.previous_secret === undefined || Date.parse(expires) <= clockNow)
    return [endpoint.secret]
  return [endpoint.secret, endpoint.previous_secret]
}

/**
 * The endpoint without its previous secret, once that has expired at scheduler time `clockNow` (ms); undefined
 * when it has none or it signs still. A clock put back (a reset, a restore) would be before the expiry again:
 * the secret is retired first, so that it never signs again (docs/api.md, "Rotation").
 *
 * @example
 * retiredSecret(endpoint, clock.now()) // the endpoint without previous_secret, or undefined
 */
export function retiredSecret(endpoint: WebhookEndpointRecord, clockNow: number): WebhookEndpointRecord | undefined {
  if (endpoint.previous_secret === undefined || signingSecrets(endpoint, clockNow).length > 1) return undefined
  const {previous_secret: _secret, previous_secret_expires_at: _expiry, ...retired} = endpoint
  return retired
}
