import type {H3Event} from 'h3'
import {ApiError} from '../../domain/errors.js'
import type {CheckRecord} from '../../domain/records.js'
import type {Table} from '../../store/table.js'
import type {AppContext} from '../context.js'
import {accountOf} from './auth.js'
import {paginate, readListQuery} from './list.js'

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

/** The check `:id` of the URL, in the caller's account. */
export const findCheck = ({store}: AppContext, event: H3Event): CheckRecord => findOwned(store.tables.checks, event, 'check')

/** One page of what guests made on the check `:id` (its claims, payments or feedback), newest first. */
export function listOfCheck<R extends {account_id: string; check_id: string}, T>(app: AppContext, event: H3Event, table: Table<R>, render: (record: R) => T) {
  const check = findCheck(app, event)
  const query = readListQuery(event)
  return paginate(table.idsOf(check.account_id), (id) => table.get(id), query, (r) => r.check_id === check.id, render)
}
