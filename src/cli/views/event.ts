import type {Event} from '../../client/client.js'
import {formatDateTime} from './format.js'
import {style} from './style.js'
import {type Column, renderTable} from './table.js'
import {printable, printableLines} from './printable.js'

const COLUMNS: Column<Event>[] = [
  {header: 'ID', value: (e) => e.id},
  {header: 'TYPE', value: (e) => e.type},
  {header: 'CREATED', value: (e) => formatDateTime(e.created_at)},
  {header: 'OBJECT', value: (e) => String(e.data.id ?? '')},
]

export function renderEventList(events: readonly Event[]): string {
  return renderTable(events, COLUMNS)
}

/** The envelope's head, then its data as indented JSON (what a receiver gets), printable. */
export function renderEventDetail(event: Event): string {
  const head = `${style.bold(printable(event.type))}  ${printable(event.id)}  ${formatDateTime(event.created_at)}`
  return `${head}\n${printableLines(JSON.stringify(event.data, null, 2))}`
}
