import type {H3Event} from 'h3'
import {ApiError} from '../../domain/errors.js'
import type {CheckRecord, CollectionName, Collections, WebhookEndpointRecord} from '../../domain/records.js'
import {actingAccount} from '../../service/accounts.js'
import type {Service} from '../../service/index.js'
import type {AppContext} from '../context.js'
import {accountOf} from './auth.js'
import {paginate, readListQuery} from './list.js'
import type {Where} from '../../service/storage.js'

/**
 * The record `id` (default: the `:id` path parameter) if it belongs to the
 * caller's account. Another account's record answers 404, never 403: its
 * existence is not the caller's business.
 */
export async function findOwned<C extends CollectionName>(
  {service}: AppContext,
  collection: C,
  event: H3Event,
  noun: string,
  id = event.context.params?.id ?? '',
): Promise<Collections[C]> {
  return found(service, event, await service.records.owned(collection, accountOf(event), id), noun, id)
}

/** The webhook endpoint `:id` of the URL, in the caller's account, wherever it is kept (`endpointOf`). */
export async function findEndpoint({service}: AppContext, event: H3Event): Promise<WebhookEndpointRecord> {
  const id = event.context.params?.id ?? ''
  return found(service, event, await service.records.endpoint(accountOf(event), id), 'webhook endpoint', id)
}

/** `record`, or a 404; a 401 when the caller's account was deleted meanwhile, taking the record (`actingAccount`). */
export async function found<T>(service: Service, event: H3Event, record: T | undefined, noun: string, id: string) {
  if (record) return record
  await actingAccount(service.records, accountOf(event))
  throw new ApiError('not_found', `No ${noun} ${id} in this account.`)
}

/** The check `:id` of the URL, in the caller's account. */
export const findCheck = (app: AppContext, event: H3Event): Promise<CheckRecord> =>
  findOwned(app, 'checks', event, 'check')

/** One page of what guests made on the check `:id` (its claims, payments or feedback), newest first. */
export async function listOfCheck<C extends 'claims' | 'payments' | 'feedback', T>(
  app: AppContext,
  event: H3Event,
  collection: C,
  render: (record: Collections[C]) => T,
) {
  const check = await findCheck(app, event)
  const query = readListQuery(event)
  const where = {check_id: check.id} as Where<C>
  return paginate(app.service.records, collection, check.account_id, query, where, render)
}
