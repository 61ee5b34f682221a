import type {H3Event} from 'h3'
import * as z from 'zod'
import {invalidField} from '../../domain/errors.js'
import type {Collections} from '../../domain/records.js'
import {actingAccount} from '../../service/accounts.js'
import type {Records} from '../../service/records.js'
import type {Where} from '../../service/storage.js'
import {validationError} from './body.js'
import {queryOf} from './query.js'
import {READABLE} from '../../domain/parse-messages.js'

/**
 * A query's number as the API document's integer reads it: digits only.
 * JavaScript's `Number` would also take 0x10, 1e1, 10.0 or ' 10'; those
 * stay text, which the number schema refuses.
 */
const decimal = (value: unknown) => (typeof value === 'string' && /^[0-9]+$/.test(value) ? Number(value) : value)

/** Query parameters every list takes. */
const LIMIT_RULE = 'must be 1 to 100'

export const ListQuery = z.object({
  limit: z.preprocess(
    decimal,
    z
      .number({error: 'expected a whole number in digits'})
      // only digits reach it as a number: one too long for a safe integer is out of range too
      .int({error: LIMIT_RULE, abort: true})
      .min(1, LIMIT_RULE)
      .max(100, LIMIT_RULE)
      .default(20),
  ),
  starting_after: z.string().min(1).optional(),
})

const NO_FILTERS = z.object({})

/** The strict schema of each resource's list query, made once: zod builds a schema at a cost, and lists are read often. */
const querySchemas = new WeakMap<z.ZodObject, z.ZodType>()

function querySchema(filters: z.ZodObject): z.ZodType {
  let schema = querySchemas.get(filters)
  if (!schema) {
    schema = ListQuery.extend(filters.shape).strict()
    querySchemas.set(filters, schema)
  }
  return schema
}

/** The list query plus a resource's own filters, from the URL; a 422 on anything unparsable. */
export function readListQuery<S extends z.ZodObject>(
  event: H3Event,
  filters: S = NO_FILTERS as unknown as S,
): z.output<typeof ListQuery> & z.output<S> {
  const result = querySchema(filters).safeParse(queryOf(event), READABLE)
  if (!result.success) throw validationError('Query', result.error)
  return result.data as z.output<typeof ListQuery> & z.output<S>
}

export interface Page<T> {
  object: 'list'
  data: T[]
  has_more: boolean
  next_cursor: string | null
}

/** The collections that lists page through: their records have an `id`, the cursor. */
type Listed =
  'locations' | 'checks' | 'claims' | 'payments' | 'feedback' | 'events' | 'webhook_endpoints' | 'deliveries'

/**
 * One page of the account's records in `collection` that match `where`,
 * newest first, rendered; `starting_after` is the last id of the previous page.
 */
export async function paginate<C extends Listed, T>(
  records: Records,
  collection: C,
  accountId: string,
  query: {limit: number; starting_after?: string},
  where: Where<C> | undefined,
  render: (record: Collections[C]) => T,
): Promise<Page<T>> {
  const page = await records.page(collection, accountId, {
    limit: query.limit,
    startingAfter: query.starting_after,
    where,
  })
  // the account deleted while the request ran: refused as its key now is (docs/api.md, "Scratch accounts")
  if (!page?.records.length) await actingAccount(records, accountId)
  if (!page) throw unknownCursor(query.starting_after!)
  const {records: found, hasMore} = page
  return {object: 'list', data: found.map(render), has_more: hasMore, next_cursor: hasMore ? found.at(-1)!.id : null}
}

/** A `starting_after` that names nothing the list holds or held lately (docs/api.md, "Lists"). */
export const unknownCursor = (cursor: string) =>
  invalidField('starting_after', `no ${cursor} in this list; pass the next_cursor of the previous page`)

/** One page of `items` (all of the list, newest first), as `paginate` pages records: `keyOf` is the cursor. */
export function pageOf<T>(
  items: readonly T[],
  {limit, starting_after}: {limit: number; starting_after?: string},
  keyOf: (item: T) => string,
): Page<T> {
  const from = starting_after === undefined ? 0 : items.findIndex((item) => keyOf(item) === starting_after) + 1
  if (from === 0 && starting_after !== undefined) throw unknownCursor(starting_after)
  const data = items.slice(from, from + limit)
  const has_more = items.length > from + limit
  return {object: 'list', data, has_more, next_cursor: has_more ? keyOf(data.at(-1)!) : null}
}
