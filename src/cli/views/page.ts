import type {List} from '../../client/client.js'
import {style} from './style.js'
import {printable} from './printable.js'

/** One page of a list: its rows, or that there are none, then where the next page starts. */
export function renderPage<T>(page: List<T>, renderRows: (rows: T[]) => string, noun: string): string {
  const body = page.data.length > 0 ? renderRows(page.data) : style.dim(`No ${noun}.`)
  return page.has_more ? `${body}\n${style.dim(`More: --starting-after ${printable(String(page.next_cursor))}`)}` : body
}
