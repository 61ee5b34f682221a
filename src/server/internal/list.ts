import {getQuery, type H3Event} from 'h3'
import {z} from 'zod'
import {invalidField} from '../../domain/errors.js'
import {validationError} from './body.js'

/** Query parameters every list takes. */
export const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
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
  const result = querySchema(filters).safeParse(getQuery(event))
  if (!result.success) throw validationError('Query', result.error)
  return result.data as z.output<typeof ListQuery> & z.output<S>
}

export interface Page<T> {
  object: 'list'
  data: T[]
  has_more: boolean
  next_cursor: string | null
}

/**
 * One page of a list, newest first. `ids` are the account's ids oldest first;
 * `starting_after` is the last id of the previous page.
 */
export function paginate<R, T>(
  ids: readonly string[],
  lookup: (id: string) => R | undefined,
  query: {limit: number; starting_after?: string},
  keep: (record: R) => boolean,
  render: (record: R) => T,
): Page<T> {
  let start = ids.length - 1
  if (query.starting_after !== undefined) {
    const at = ids.lastIndexOf(query.starting_after)
    if (at === -1)
      throw invalidField(
        'starting_after',
        `no ${query.starting_after} in this list; pass the next_cursor of the previous page`,
      )
    start = at - 1
  }
  const data: T[] = []
  let last: string | undefined
  let i = start
  for (; i >= 0 && data.length < query.limit; i--) {
    const record = lookup(ids[i]!)
    if (record !== undefined && keep(record)) {
      data.push(render(record))
      last = ids[i]
    }
  }
  let has_more = false
  for (; i >= 0 && !has_more; i--) {
    const record = lookup(ids[i]!)
    has_more = record !== undefined && keep(record)
  }
  return {object: 'list', data, has_more, next_cursor: has_more ? last! : null}
}
