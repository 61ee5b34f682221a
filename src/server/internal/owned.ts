import type {H3Event} from 'h3'
import {ApiError} from '../../domain/errors.js'
import type {Table} from '../../store/table.js'
import {accountOf} from './auth.js'

/**
 * The record `id` (default: the `:id` path parameter) if it belongs to the
 * caller's account. Another account's record answers 404, never 403: its
 * existence is not the caller's business.
 */
export function findOwned<T extends {account_id: string}>(table: Table<T>, event: H3Event, noun: string, id = event.context.params?.id ?? ''): T {
  const record = table.get(id)
  if (!record || record.account_id !== accountOf(event)) throw new ApiError('not_found', `No ${noun} ${id} in this account.`)
  return record
}
