import type {List} from '../client/client.js'

/** Most pages a catch-up reads (100 records each): it stays a few requests, whatever the server holds. */
export const MAX_PAGES = 10

/**
 * The records of a newest-first list, page after page (100 each), for as
 * long as the caller reads them and at most `maxPages` pages.
 *
 * @example
 * for await (const delivery of newestFirst((page) => client.listDeliveries(page))) if (old(delivery)) break
 */
export async function* newestFirst<T>(
  list: (page: {limit: number; starting_after?: string}) => Promise<List<T>>,
  maxPages = MAX_PAGES,
): AsyncGenerator<T> {
  let cursor: string | undefined
  for (let pages = 0; pages < maxPages; pages++) {
    const page = await list({limit: 100, starting_after: cursor})
    yield* page.data
    if (!page.has_more || page.next_cursor === null) return
    cursor = page.next_cursor
  }
}

/**
 * A list whole, page after page: what a command that takes no paging flags
 * shows (`locations list`, `faults list`, `snapshots list`: docs/cli.md).
 *
 * @example
 * const locations = await wholeList((page) => client.listLocations(page))
 */
export async function wholeList<T>(
  list: (page: {limit: number; starting_after?: string}) => Promise<List<T>>,
): Promise<List<T>> {
  const data: T[] = []
  for await (const item of newestFirst(list, Infinity)) data.push(item)
  return {object: 'list', data, has_more: false, next_cursor: null}
}
