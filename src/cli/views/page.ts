import type {List} from '../../client/client.js'
import {style} from './style.js'
import {printable} from './printable.js'

/**
 * One page of a list: its rows, or that there are none, then the command line of the next page (`nextPage`:
 * Command's, the same filters from where this one ends).
 */
export function renderPage<T>(
  page: List<T>,
  renderRows: (rows: T[]) => string,
  noun: string,
  nextPage: (cursor: string) => string,
): string {
  const body = page.data.length > 0 ? renderRows(page.data) : style.dim(`No ${noun}.`)
  return page.has_more ? `${body}\n${style.dim(`More: ${printable(nextPage(String(page.next_cursor)))}`)}` : body
}
