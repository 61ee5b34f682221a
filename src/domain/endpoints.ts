import {invalidField} from './errors.js'
import {newId, randomToken} from './ids.js'
import type {WebhookEndpointRecord} from './records.js'
import type {WebhookEndpoint, WebhookEndpointInput} from './schemas.js'

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
    event_types: [...new Set(input.event_types)],
    description: input.description ?? null,
    status: 'enabled',
    created_at: now,
    updated_at: now,
    account_id: accountId,
    secret: `whsec_${randomToken(32)}`,
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
